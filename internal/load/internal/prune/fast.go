package prune

import (
	"unicode/utf8"

	"cuelang.org/go/cue/token"
)

// CUE's scanner does more than pruning needs (positions with line
// tables, a string for every token, every form of literal), and in a
// large package it is most of what a build of one environment costs.
// fastLex reads the common subset of CUE at a fraction of that cost and
// gives up on anything else: multi-line and raw strings, attributes,
// escapes other than the simple ones, numbers other than plain decimals,
// non-ASCII text outside strings and comments, carriage returns. Where
// it does not give up, its tokens are CUE's scanner's exactly (offsets,
// kinds, literals, the commas inserted at line ends, string
// interpolations as lex follows them): TestFastLexAsCUE and
// FuzzFastLexAsCUE hold the two together. Where it gives up, the file is
// read with CUE's scanner.

// fastLex calls yield with the tokens of src as lex would; it reports
// false, having called yield with some tokens or none, when src is not
// in the subset it reads.
func Fast(src string, yield func(Token)) bool {
	l := fastLexer{src: src, yield: yield}
	return l.run()
}

type fastLexer struct {
	src   string
	i     int
	yield func(Token)
	// insertComma: a line end after the last token is a comma.
	insertComma bool
	depth       int
	// interp holds, for each open string interpolation, its quote and
	// the depth inside it.
	interp []interpFrame
}

type interpFrame struct {
	quote byte
	depth int
}

func (l *fastLexer) emit(off int, t token.Token, lit string) { l.yield(Token{off, t, lit}) }

func (l *fastLexer) run() bool {
	src := l.src
	for {
		// Blanks, and line ends that are not commas.
		for l.i < len(src) {
			c := src[l.i]
			if c == ' ' || c == '\t' || c == '\n' && !l.insertComma {
				l.i++
				continue
			}
			break
		}
		if l.i >= len(src) {
			if len(l.interp) > 0 {
				return false
			}
			if l.insertComma {
				l.emit(len(src), token.COMMA, "\n")
			}
			l.emit(len(src), token.EOF, "")
			return true
		}
		start, c := l.i, src[l.i]
		insert := false
		switch {
		case c == '\n':
			// A line end after a token that ends a line: a comma, unless
			// the next token is a comma or a colon.
			l.insertComma = false
			l.i++
			j := l.i
			for j < len(src) && (src[j] == ' ' || src[j] == '\t' || src[j] == '\n') {
				j++
			}
			if j < len(src) && (src[j] == ',' || src[j] == ':') {
				continue
			}
			if j < len(src) && src[j] == '\r' {
				return false
			}
			l.emit(start, token.COMMA, "\n")
			continue
		case c == '/' && start+1 < len(src) && src[start+1] == '/':
			if l.insertComma {
				l.insertComma = false
				l.emit(start, token.COMMA, "\n")
			}
			for l.i < len(src) && src[l.i] != '\n' {
				if !l.text() {
					return false
				}
			}
			continue
		case isLetterByte(c) || c == '$' || c == '#' || c == '_':
			if c == '#' && (start+1 >= len(src) || !isLetterByte(src[start+1])) {
				return false // a raw string, or #<digit>
			}
			if c == '_' && start+1 < len(src) && (src[start+1] == '|' || src[start+1] == '_') {
				return false // _|_ or __
			}
			l.i++
			if c == '_' && l.i < len(src) && src[l.i] == '#' {
				l.i++
				if l.i >= len(src) || !isLetterByte(src[l.i]) {
					return false
				}
			}
			for l.i < len(src) && (isLetterByte(src[l.i]) || isDigitByte(src[l.i]) || src[l.i] == '_' || src[l.i] == '$') {
				l.i++
			}
			if l.i < len(src) && src[l.i] >= 0x80 {
				return false
			}
			lit := src[start:l.i]
			t := token.IDENT
			if mayBeKeyword(lit) {
				t = token.Lookup(lit)
			}
			l.emit(start, t, lit)
			insert = true
		case isDigitByte(c):
			if !l.number() {
				return false
			}
			insert = true
		case c == '"' || c == '\'':
			if !l.string(c) {
				return false
			}
			insert = true
		default:
			t, n, ins, ok := operator(src[start:])
			if !ok {
				return false
			}
			l.i += n
			switch t {
			case token.LPAREN, token.LBRACK, token.LBRACE:
				l.depth++
			case token.RBRACK, token.RBRACE:
				l.depth--
			case token.RPAREN:
				l.depth--
				if k := len(l.interp); k > 0 && l.interp[k-1].depth == l.depth+1 {
					l.emit(start, t, "")
					if !l.resume() {
						return false
					}
					l.insertComma = true
					continue
				}
			}
			lit := ""
			if t == token.COMMA {
				lit = ","
			}
			l.emit(start, t, lit)
			insert = ins
		}
		l.insertComma = insert
	}
}

// number reads a plain decimal: digits, then a fraction.
func (l *fastLexer) number() bool {
	src, start := l.src, l.i
	if src[l.i] == '0' && l.i+1 < len(src) && (isLetterByte(src[l.i+1]) || isDigitByte(src[l.i+1]) || src[l.i+1] == '_') {
		return false
	}
	for l.i < len(src) && isDigitByte(src[l.i]) {
		l.i++
	}
	t := token.INT
	if l.i+1 < len(src) && src[l.i] == '.' && isDigitByte(src[l.i+1]) {
		t = token.FLOAT
		l.i++
		for l.i < len(src) && isDigitByte(src[l.i]) {
			l.i++
		}
	}
	if l.i < len(src) && (isLetterByte(src[l.i]) || src[l.i] == '_' || src[l.i] == '.' || src[l.i] >= 0x80) {
		return false // an exponent, a multiplier, another base
	}
	l.emit(start, t, src[start:l.i])
	return true
}

// string reads a one-line string from its opening quote q: to its
// closing quote, or to an interpolation's opening, which is followed by
// its parenthesis as a token of its own.
func (l *fastLexer) string(q byte) bool {
	src, start := l.src, l.i
	if start+1 < len(src) && src[start+1] == q {
		if start+2 < len(src) && src[start+2] == q {
			return false // a multi-line string
		}
		l.i += 2
		l.emit(start, token.STRING, src[start:l.i])
		return true
	}
	l.i++
	open, ok := l.segment(q)
	if !ok {
		return false
	}
	if open {
		l.emit(start, token.INTERPOLATION, src[start:l.i+1])
		l.interp = append(l.interp, interpFrame{q, l.depth + 1})
		return true
	}
	l.emit(start, token.STRING, src[start:l.i])
	return true
}

// segment reads a string's text up to its closing quote (past it) or an
// interpolation's \( (leaving l.i at the parenthesis); open says which.
func (l *fastLexer) segment(q byte) (open, ok bool) {
	src := l.src
	for l.i < len(src) {
		c := src[l.i]
		if c >= ' ' && c < utf8.RuneSelf && c != q && c != '\\' {
			l.i++ // the common case: printable ASCII
			continue
		}
		switch {
		case c == q:
			l.i++
			return false, true
		case c == '\n' || c == '\r':
			return false, false
		case c == '\\':
			if l.i+1 >= len(src) {
				return false, false
			}
			switch e := src[l.i+1]; e {
			case '(':
				l.i++
				return true, true
			case 'a', 'b', 'f', 'n', 'r', 't', 'v', '\\', '/', q:
				l.i += 2
			default:
				return false, false
			}
		default:
			if !l.text() {
				return false, false
			}
		}
	}
	return false, false
}

// text steps over one character of a string or a comment: not a NUL, a
// carriage return or a byte order mark, and valid UTF-8, as CUE's
// scanner requires.
func (l *fastLexer) text() bool {
	c := l.src[l.i]
	if c == 0 || c == '\r' {
		return false
	}
	if c < utf8.RuneSelf {
		l.i++
		return true
	}
	r, n := utf8.DecodeRuneInString(l.src[l.i:])
	if r == utf8.RuneError || r == 0xFEFF {
		return false
	}
	l.i += n
	return true
}

// resume goes on with an interpolated string after the parenthesis that
// closed an interpolation: to its end, or to the next interpolation's
// parenthesis, which is read next as a token.
func (l *fastLexer) resume() bool {
	k := len(l.interp) - 1
	open, ok := l.segment(l.interp[k].quote)
	if !ok {
		return false
	}
	if !open {
		l.interp = l.interp[:k]
	}
	return true
}

// operator is the operator or punctuation at the start of s, its length,
// and whether a line end after it is a comma.
func operator(s string) (t token.Token, n int, insertComma, ok bool) {
	next := byte(0)
	if len(s) > 1 {
		next = s[1]
	}
	switch s[0] {
	case ':':
		return token.COLON, 1, false, true
	case ',':
		return token.COMMA, 1, false, true
	case ';':
		return token.SEMICOLON, 1, true, true
	case '?':
		return token.OPTION, 1, true, true
	case '~':
		return token.TILDE, 1, false, true
	case '(':
		return token.LPAREN, 1, false, true
	case ')':
		return token.RPAREN, 1, true, true
	case '[':
		return token.LBRACK, 1, false, true
	case ']':
		return token.RBRACK, 1, true, true
	case '{':
		return token.LBRACE, 1, false, true
	case '}':
		return token.RBRACE, 1, true, true
	case '+':
		return token.ADD, 1, false, true
	case '-':
		return token.SUB, 1, false, true
	case '*':
		return token.MUL, 1, false, true
	case '/':
		return token.QUO, 1, false, true
	case '.':
		if next == '.' {
			if len(s) > 2 && s[2] == '.' {
				return token.ELLIPSIS, 3, true, true
			}
			return 0, 0, false, false
		}
		if isDigitByte(next) {
			return 0, 0, false, false // a number such as .5
		}
		return token.PERIOD, 1, false, true
	case '<':
		switch next {
		case '-':
			return token.ARROW, 2, false, true
		case '=':
			return token.LEQ, 2, false, true
		}
		return token.LSS, 1, false, true
	case '>':
		if next == '=' {
			return token.GEQ, 2, false, true
		}
		return token.GTR, 1, false, true
	case '=':
		switch next {
		case '~':
			return token.MAT, 2, false, true
		case '=':
			return token.EQL, 2, false, true
		}
		return token.BIND, 1, false, true
	case '!':
		switch next {
		case '~':
			return token.NMAT, 2, false, true
		case '=':
			return token.NEQ, 2, false, true
		}
		return token.NOT, 1, false, true
	case '&':
		if next == '&' {
			return token.LAND, 2, false, true
		}
		return token.AND, 1, false, true
	case '|':
		if next == '|' {
			return token.LOR, 2, false, true
		}
		return token.OR, 1, false, true
	}
	return 0, 0, false, false
}

func isLetterByte(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }
func isDigitByte(c byte) bool  { return '0' <= c && c <= '9' }

// mayBeKeyword is false for most identifiers that are not keywords (all
// of which are 2 to 9 lowercase letters), sparing a lookup.
func mayBeKeyword(lit string) bool {
	if len(lit) < 2 || len(lit) > 9 {
		return false
	}
	switch lit[0] {
	case 'e', 'f', 'i', 'l', 'n', 'o', 't':
		return true
	}
	return false
}
