package lint

import (
	"slices"

	"github.com/karpgen/karpgen/internal/util/escape"
)

// multiLine are the profile fields whose strings are text of many lines
// by nature (a node's user data); every other string is one line.
var multiLine = []string{"userData"}

// walkText calls bad for each string (map key or value) below v that is
// not one printable line, with its profile path. The path is put
// together only for what is reported: a fleet has many strings and few
// bad ones.
func walkText(v any, path []any, bad func(path, s string, key bool)) {
	switch v := v.(type) {
	case map[string]any:
		for _, k := range names(v) {
			p := append(slices.Clip(path), k)
			if !oneLine(k) {
				bad(textPath(p), k, true)
				continue
			}
			if _, text := v[k].(string); text && slices.Contains(multiLine, k) {
				continue
			}
			walkText(v[k], p, bad)
		}
	case []any:
		for i, x := range v {
			walkText(x, append(slices.Clip(path), i), bad)
		}
	case string:
		if !oneLine(v) {
			bad(textPath(path), v, false)
		}
	}
}

// textPath writes a path of walkText: keys as fields, ints as indices.
func textPath(parts []any) string {
	out := make([]any, len(parts))
	for i, p := range parts {
		if k, ok := p.(string); ok {
			out[i] = field(k)
		} else {
			out[i] = p
		}
	}
	return at(out...)
}

// plainASCII says whether JSON text is printable ASCII without an escape
// sequence: then no string in it holds anything walkText reports (json
// escapes every control character, and anything past ASCII is left to
// the walk), and most profiles are that.
func plainASCII(data []byte) bool {
	for _, b := range data {
		if b < 0x20 || b > 0x7e || b == '\\' {
			return false
		}
	}
	return true
}

// oneLine reports printable UTF-8 text on one line: text the terminal
// layer shows as it is.
func oneLine(s string) bool { return escape.Terminal(s) == s }
