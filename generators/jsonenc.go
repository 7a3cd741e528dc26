package generators

import (
	"slices"
	"strconv"
	"unicode/utf8"
)

// appendJSON writes v to b as encoding/json writes it with two spaces of
// indent and HTML characters kept, for the plain values generators
// build: objects with string keys (sorted), lists, strings, booleans,
// integers and null. It reports false for any other value (a float, a
// type with its own MarshalJSON), and encodeJSON then leaves the whole
// document to encoding/json. It writes in one pass what encoding/json
// marshals and then indents. TestJSONMatchesEncodingJSON and
// FuzzJSONMatchesEncodingJSON hold the two together.
func appendJSON(b []byte, v any, indent int) ([]byte, bool) {
	switch v := v.(type) {
	case nil:
		return append(b, "null"...), true
	case string:
		return appendJSONString(b, v), true
	case bool:
		return strconv.AppendBool(b, v), true
	case int:
		return strconv.AppendInt(b, int64(v), 10), true
	case int64:
		return strconv.AppendInt(b, v, 10), true
	case map[string]any:
		return appendJSONObject(b, v, indent)
	case map[string]string:
		return appendJSONObject(b, v, indent)
	case map[string]obj:
		return appendJSONObject(b, v, indent)
	case []any:
		return appendJSONList(b, v, indent)
	case []string:
		return appendJSONList(b, v, indent)
	}
	return b, false
}

func appendJSONObject[V any](b []byte, m map[string]V, indent int) ([]byte, bool) {
	if m == nil {
		return append(b, "null"...), true
	}
	if len(m) == 0 {
		return append(b, "{}"...), true
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	b = append(b, '{')
	for i, k := range keys {
		if i > 0 {
			b = append(b, ',')
		}
		b = newline(b, indent+1)
		b = appendJSONString(b, k)
		b = append(b, ": "...)
		var ok bool
		if b, ok = appendJSON(b, m[k], indent+1); !ok {
			return b, false
		}
	}
	return append(newline(b, indent), '}'), true
}

func appendJSONList[V any](b []byte, l []V, indent int) ([]byte, bool) {
	if l == nil {
		return append(b, "null"...), true
	}
	if len(l) == 0 {
		return append(b, "[]"...), true
	}
	b = append(b, '[')
	for i, x := range l {
		if i > 0 {
			b = append(b, ',')
		}
		b = newline(b, indent+1)
		var ok bool
		if b, ok = appendJSON(b, x, indent+1); !ok {
			return b, false
		}
	}
	return append(newline(b, indent), ']'), true
}

func newline(b []byte, indent int) []byte {
	b = append(b, '\n')
	for range indent {
		b = append(b, "  "...)
	}
	return b
}

// appendJSONString quotes s as encoding/json does without HTML escaping:
// the quote, the backslash and control characters escaped (\b \f \n \r
// \t by name, others as \u00XX), invalid UTF-8 as \ufffd, and U+2028 and
// U+2029 as \u2028 and \u2029.
func appendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xf])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
