package lint

import (
	"encoding"
	"encoding/json"
	"reflect"
	"slices"

	"github.com/karpgen/karpgen/internal/util/escape"
	"github.com/karpgen/karpgen/internal/util/jsonfields"
)

// multiLine are the profile fields whose strings are text of many lines
// by nature (a node's user data); every other string is one line.
var multiLine = []string{"userData"}

// badText calls bad for each key or string of the profile p, as JSON
// shows it, that is not one printable line (userData's excepted).
func badText(p any, bad func(path, s string, key bool)) {
	if !textOK(reflect.ValueOf(p)) {
		textThroughJSON(p, bad)
	}
}

// textThroughJSON is badText the long way: the profile through JSON, and each
// string of that walked.
func textThroughJSON(p any, bad func(path, s string, key bool)) {
	data, err := json.Marshal(p)
	if err != nil || plainASCII(data) {
		return
	}
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		return
	}
	walkText(v, nil, bad)
}

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

// textOK says, without encoding it, that every key and string of v that
// JSON shows is one printable line, the strings of multiLine fields
// excepted: what walkText would find nothing in. It looks at no less
// than JSON shows (a type whose JSON names it cannot read says false),
// so true is certain and false only sends the profile through JSON and
// walkText, which say where. A type that writes its own JSON is not
// looked into.
func textOK(v reflect.Value) bool {
	if v.IsValid() && writesItself(v.Type()) {
		return false
	}
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		return v.IsNil() || textOK(v.Elem())
	case reflect.String:
		return oneLineText(v.String())
	case reflect.Struct:
		fields, err := jsonfields.Of(v.Type())
		if err != nil {
			return false
		}
		for _, f := range fields {
			fv := v.Field(f.Index)
			if slices.Contains(multiLine, f.Name) && isText(fv) {
				continue
			}
			if !textOK(fv) {
				return false
			}
		}
	case reflect.Map:
		for it := v.MapRange(); it.Next(); {
			val := it.Value()
			if k := it.Key(); k.Kind() == reflect.String {
				if !oneLineText(k.String()) {
					return false
				}
				if slices.Contains(multiLine, k.String()) && isText(val) {
					continue
				}
			}
			if !textOK(val) {
				return false
			}
		}
	case reflect.Slice, reflect.Array:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			return true // JSON writes bytes as base64
		}
		for i := range v.Len() {
			if !textOK(v.Index(i)) {
				return false
			}
		}
	}
	return true
}

var (
	jsonMarshaler = reflect.TypeFor[json.Marshaler]()
	textMarshaler = reflect.TypeFor[encoding.TextMarshaler]()
)

// writesItself says t (or a pointer to it) chooses its own JSON.
func writesItself(t reflect.Type) bool {
	if t.Kind() == reflect.Interface {
		return false
	}
	pt := reflect.PointerTo(t)
	return t.Implements(jsonMarshaler) || t.Implements(textMarshaler) || pt.Implements(jsonMarshaler) || pt.Implements(textMarshaler)
}

// isText says v is written in JSON as a string.
func isText(v reflect.Value) bool {
	for v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface {
		if v.IsNil() {
			return false
		}
		v = v.Elem()
	}
	return v.Kind() == reflect.String
}

// oneLineText is oneLine, with printable ASCII settled without escaping.
func oneLineText(s string) bool {
	for i := range len(s) {
		if b := s[i]; b < 0x20 || b > 0x7e {
			return oneLine(s)
		}
	}
	return true
}
