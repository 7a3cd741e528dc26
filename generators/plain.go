package generators

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
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
		for _, f := range jsonFieldsOf(v.Type()) {
			fv := v.Field(f.index)
			if f.omitEmpty && isEmpty(fv) {
				continue
			}
			x := plainValue(fv)
			if m, ok := x.(obj); ok && f.omitEmpty && fv.Kind() == reflect.Struct && len(m) == 0 {
				continue
			}
			o[f.name] = x
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

// jsonField is a struct field with a JSON name.
type jsonField struct {
	index     int
	name      string
	omitEmpty bool
}

var jsonFields sync.Map // reflect.Type → []jsonField

// jsonFieldsOf lists the fields of t that encoding/json writes, which
// must all be named: an object written without its JSON names would not
// be the CRD's.
func jsonFieldsOf(t reflect.Type) []jsonField {
	if fs, ok := jsonFields.Load(t); ok {
		return fs.([]jsonField)
	}
	var fs []jsonField
	for i := range t.NumField() {
		f := t.Field(i)
		name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		switch {
		case !f.IsExported() || name == "-":
			continue
		case name == "" || f.Anonymous:
			panic(fmt.Sprintf("generators: %s.%s has no JSON name", t, f.Name))
		}
		fs = append(fs, jsonField{i, name, slices.Contains(strings.Split(opts, ","), "omitempty")})
	}
	jsonFields.Store(t, fs)
	return fs
}
