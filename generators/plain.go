package generators

import (
	"fmt"
	"reflect"

	"github.com/karpgen/karpgen/internal/util/jsonfields"
)

// obj is a JSON object, the plain value every generator builds; encoding
// sorts its keys.
type obj = map[string]any

// strs is a list of strings as the encoder takes lists.
func strs(s ...string) []any {
	out := make([]any, len(s))
	for i, x := range s {
		out[i] = x
	}
	return out
}

// plain turns a typed object into the plain value the encoders write,
// as encoding/json would see it: a struct becomes an obj of its fields by
// their JSON names, without the fields tagged omitempty that are empty
// (a nil pointer, an empty string, list or map, false, zero, and a
// struct none of whose fields is written); a pointer
// becomes what it points to; a list becomes []any, and a map with values
// other than strings an obj. An obj or a map of strings is taken as
// plain already. So an object is declared once, with the
// CRD's names, and says in its tags what is left out when empty.
func plain(v any) any { return plainValue(reflect.ValueOf(v)) }

func plainValue(v reflect.Value) any {
	switch v.Kind() {
	case reflect.Invalid:
		return nil
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return nil
		}
		return plainValue(v.Elem())
	case reflect.Struct:
		o := obj{}
		fields, err := jsonfields.Of(v.Type())
		if err != nil {
			// An object written without its JSON names would not be
			// the CRD's.
			panic("generators: " + err.Error())
		}
		for _, f := range fields {
			fv := v.Field(f.Index)
			if f.OmitEmpty && isEmpty(fv) {
				continue
			}
			x := plainValue(fv)
			if m, ok := x.(obj); ok && f.OmitEmpty && fv.Kind() == reflect.Struct && len(m) == 0 {
				continue
			}
			o[f.Name] = x
		}
		return o
	case reflect.Slice:
		out := make([]any, v.Len())
		for i := range out {
			out[i] = plainValue(v.Index(i))
		}
		return out
	case reflect.Map:
		switch m := v.Interface().(type) {
		case map[string]string:
			return m
		case map[string]any:
			return m
		}
		o := make(obj, v.Len())
		for it := v.MapRange(); it.Next(); {
			o[it.Key().String()] = plainValue(it.Value())
		}
		return o
	case reflect.String:
		return v.String()
	case reflect.Bool:
		return v.Bool()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return int(v.Int())
	}
	panic(fmt.Sprintf("generators: no plain form for %s", v.Type()))
}

// isEmpty is encoding/json's test for omitempty.
func isEmpty(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.String, reflect.Slice, reflect.Map, reflect.Array:
		return v.Len() == 0
	case reflect.Pointer, reflect.Interface:
		return v.IsNil()
	case reflect.Bool:
		return !v.Bool()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return v.Int() == 0
	}
	return false
}
