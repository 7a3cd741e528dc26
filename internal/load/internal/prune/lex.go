package prune

// The tokens of a CUE file as CUE's scanner reads them, fast: Fast reads
// the common subset itself, Tokens falls back on the scanner (a large
// file from both ends at once). Pruning reads every byte of a package
// with them.

import (
	"runtime"
	"strings"

	"cuelang.org/go/cue/scanner"
	"cuelang.org/go/cue/token"
)

// Pruning reads every byte of the package, so in a large file the
// scanner is most of what a build of one environment costs. A file that
// fastLex does not read is read with CUE's scanner, and a large one from
// two ends at once: while the first half is
// scanned, another core scans from the first line start past the middle,
// and where the first scanner reaches that line its tokens are compared
// with the ones scanned ahead. They agree exactly when the line starts
// outside any token (a string spanning lines would have made the second
// scanner start inside it, where the first token it finds lies before
// the one the first scanner finds after the string): from there on both
// read the same bytes in the same state. When they disagree, the first
// scanner simply goes on.

// aheadFrom is the size from which a file's second half is scanned ahead.
const aheadFrom = 256 << 10

// Token is one scanned token.
type Token struct {
	Off int
	Tok token.Token
	Lit string
}

// lex calls yield with the tokens of src, in order, as CUE's scanner
// reads them, following string interpolations; offsets are from base.
// yield's clean is whether no interpolation is open. lex stops when
// yield returns false; it reports false when src does not scan.
func lex(name string, src []byte, base int, yield func(t Token, clean bool) bool) bool {
	var sc scanner.Scanner
	bad := false
	sc.Init(token.NewFile(name, -1, len(src)), src, func(token.Pos, string, []any) { bad = true }, 0)
	var (
		depth  int
		interp []int // the depth inside each open string interpolation
	)
	for {
		pos, t, lit := sc.Scan()
		if bad || t == token.ILLEGAL {
			return false
		}
		if !yield(Token{base + pos.Offset(), t, lit}, len(interp) == 0) || t == token.EOF {
			return true
		}
		switch t {
		case token.LBRACE, token.LBRACK, token.LPAREN:
			depth++
		case token.INTERPOLATION:
			interp = append(interp, depth+1) // the next token opens it
		case token.RBRACE, token.RBRACK, token.RPAREN:
			if n := len(interp); n > 0 && t == token.RPAREN && interp[n-1] == depth {
				interp = interp[:n-1]
				if rest := sc.ResumeInterpolation(); strings.HasSuffix(rest, "(") {
					interp = append(interp, depth)
				}
			}
			depth--
		}
	}
}

// tokens calls yield with every token of src, scanning a large file's
// second half ahead on another core. It reports false when src does not
// scan.
func Tokens(name string, src []byte, yield func(Token)) bool {
	return tokensFrom(name, src, aheadSplit(src), yield)
}

// tokensFrom is tokens with the second scanner starting at split, a
// line start (none when split is -1).
func tokensFrom(name string, src []byte, split int, yield func(Token)) bool {
	if split < 0 {
		return lex(name, src, 0, func(t Token, _ bool) bool { yield(t); return true })
	}
	type scanned struct {
		toks []Token
		ok   bool
	}
	ahead := make(chan scanned, 1)
	go func() {
		toks := make([]Token, 0, (len(src)-split)/4)
		ok := lex(name, src[split:], split, func(t Token, _ bool) bool { toks = append(toks, t); return true })
		ahead <- scanned{toks, ok}
	}()
	var rest *scanned
	ok := lex(name, src, 0, func(t Token, clean bool) bool {
		if t.Off < split || rest != nil {
			yield(t)
			return true
		}
		// The first token at or past the line the other core started on.
		s := <-ahead
		if clean && len(s.toks) > 0 && s.toks[0] == t {
			rest = &s
			return false
		}
		rest = &scanned{} // they disagree: go on here
		yield(t)
		return true
	})
	if rest == nil || rest.toks == nil {
		return ok
	}
	for _, t := range rest.toks {
		yield(t)
	}
	return rest.ok
}

// aheadSplit is where the second half of a large file is scanned from:
// the start of the line past the middle; -1 for a small file or a
// single core.
func aheadSplit(src []byte) int {
	if len(src) < aheadFrom || runtime.GOMAXPROCS(0) < 2 {
		return -1
	}
	for i := len(src) / 2; i < len(src)-1; i++ {
		if src[i] == '\n' {
			return i + 1
		}
	}
	return -1
}
