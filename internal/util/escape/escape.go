// Package escape puts text that karpgen does not control (names from
// profiles, values from captured state, messages of CUE, Jsonnet and
// kustomize, file names) into the languages karpgen prints, so that no
// byte of it can act in that language: words of POSIX shell commands,
// lines of a terminal or a CI log, comment lines, Markdown, and Mermaid
// labels.
package escape

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"mvdan.cc/sh/v3/syntax"
)

// Shell returns s as one word of a POSIX sh command: as it is when the
// shell would read it so, else quoted. Text a POSIX shell cannot quote
// printably (control characters) is single-quoted as it is; Terminal then
// shows those characters escaped wherever the command is printed.
func Shell(s string) string {
	if q, err := syntax.Quote(s, syntax.LangPOSIX); err == nil {
		return q
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// ShellJoin returns the words as one POSIX sh command line.
func ShellJoin(words ...string) string {
	out := make([]string, len(words))
	for i, w := range words {
		out[i] = Shell(w)
	}
	return strings.Join(out, " ")
}

// Terminal returns s so that a terminal or a CI log shows it and acts on
// none of it: text with a control character (newline, carriage return,
// escape, bell, tab, ...), a C1 control, a bidirectional override that
// reorders what is shown, or bytes that are not UTF-8 is shown as a Go
// string literal with those escaped (strconv.Unquote reads it back).
// Other text is kept as it is.
func Terminal(s string) string {
	if clean(s) {
		return s
	}
	return strconv.QuoteToGraphic(s)
}

// clean reports text of graphic characters only (letters, marks,
// numbers, punctuation, symbols and spaces), all of it UTF-8.
func clean(s string) bool {
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && size == 1) || !unicode.IsGraphic(r) {
			return false
		}
		i += size
	}
	return true
}

// Line returns s as (the start of) one line of a log: Terminal's form,
// and never the start of a GitHub Actions workflow command
// ("::error::..."), which the runner acts on at the start of any line of
// a job's output, leading blanks aside.
func Line(s string) string {
	if t := Terminal(s); !strings.HasPrefix(strings.TrimLeft(t, " "), "::") {
		return t
	}
	return strconv.QuoteToGraphic(s)
}

// Comment returns s as the text of one comment line of a file karpgen
// writes (a CUE profile's header): its line breaks as spaces, so that
// nothing after one is read as code, and then Terminal's form, so that a
// terminal that shows the file acts on none of it.
func Comment(s string) string {
	return Terminal(strings.Map(func(r rune) rune {
		if r == '\n' || r == '\r' || r == '\u2028' || r == '\u2029' || r == '\u0085' || r == '\v' || r == '\f' {
			return ' '
		}
		return r
	}, s))
}

// Markdown returns s as inline Markdown text (within a line, or a table
// cell) that shows exactly s: on one line (Terminal's form), with every
// character that Markdown or HTML could read as syntax there
// backslash-escaped (a pipe too, so it never ends a table cell), and
// blanks at its ends kept as character references.
//
// Nor does it act where a pull-request comment is shown: GitHub reads
// "@name" as a mention (it notifies name) and GFM reads "www.", "scheme://"
// and "name@host" as links, from plain text, escaped or not. A zero-width
// space written as a character reference (ASCII in the file, invisible
// where it is shown) follows each "@" and each "www" or scheme's ":" that
// would start one, so neither reads it. (A code span, escape.Code, needs
// none of this.)
func Markdown(s string) string {
	s = Terminal(s)
	runes := []rune(s)
	var b strings.Builder
	for i, r := range runes {
		switch {
		case strings.ContainsRune("\\`*_[]<>|&~!", r):
			b.WriteByte('\\')
			b.WriteRune(r)
		case unicode.IsSpace(r) && (i == 0 || i == len(runes)-1 || unicode.IsSpace(runes[i-1]) || unicode.IsSpace(runes[i+1])):
			// Markdown trims blanks at the ends of a line and may read
			// two as a break: as a character reference they stay.
			fmt.Fprintf(&b, "&#%d;", r)
		case r == '@', r == ':' && i+2 < len(runes) && runes[i+1] == '/' && runes[i+2] == '/':
			b.WriteRune(r)
			b.WriteString(zeroWidth)
		case (r == '.') && i >= 3 && strings.EqualFold(string(runes[i-3:i]), "www"):
			b.WriteString(zeroWidth)
			b.WriteRune(r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// zeroWidth is U+200B as a character reference: it keeps a mention or a
// link from forming and shows nothing.
const zeroWidth = "&#8203;"

// Mermaid returns s as the text of a quoted Mermaid label: on one line,
// with every character outside a small safe set written as Mermaid's
// numeric entity (#34; for a quote), so that nothing ends the label, the
// node, the diagram or its Markdown fence, and nothing is read as HTML.
func Mermaid(s string) string {
	s = Terminal(s)
	var b strings.Builder
	for _, r := range s {
		if r < 0x80 && (unicode.IsLetter(r) || unicode.IsDigit(r) || strings.ContainsRune(" ,.-_/=:@%+()", r)) {
			b.WriteRune(r)
			continue
		}
		fmt.Fprintf(&b, "#%d;", r)
	}
	return b.String()
}

// Fence is a Markdown code fence that text cannot close: three backticks,
// or one more than the longest run of backticks in it.
func Fence(text string) string { return strings.Repeat("`", max(3, longestTicks(text)+1)) }

// longestTicks is the longest run of backticks in text.
func longestTicks(text string) int {
	longest, run := 0, 0
	for _, r := range text {
		if r == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	return longest
}

// Code returns s as a Markdown code span that shows exactly s on one line
// (Terminal's form) and, pipes escaped, never ends a table cell: GitHub
// reads "\|" in a cell as a pipe, even inside code.
func Code(s string) string {
	if s == "" {
		return "" // Markdown has no empty code span
	}
	s = strings.ReplaceAll(Terminal(s), "|", `\|`)
	fence := strings.Repeat("`", longestTicks(s)+1)
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") || (strings.HasPrefix(s, " ") && strings.HasSuffix(s, " ") && strings.Trim(s, " ") != "") {
		return fence + " " + s + " " + fence
	}
	return fence + s + fence
}
