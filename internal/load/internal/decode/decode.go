// Package decode sets a profile's Go value from its CUE value, faster
// than cue.Value.Decode for the profile's types (see Decode).
package decode

import (
	"encoding/json"
	"fmt"
	"reflect"
	"sync"

	"cuelang.org/go/cue"

	"github.com/karpgen/karpgen/internal/util/jsonfields"
)

// Decode sets the Go value x points to from v, as cue.Value.Decode does
// for the profile's types, but reads a struct's fields by their names
// instead of asking CUE for the fields in order: CUE orders them (a
// topological sort of every struct that contributed to the value) each
// time they are listed, which was 13% of a fleet render's CPU and is of
// no use to a Go struct. Maps still list their fields. Values of a type
// decoded by its own UnmarshalJSON, and interfaces, are left to CUE. An
// error is only a sign to decode again with cue.Value.Decode, whose
// error says what is wrong; the value is then not used.
func Decode(v cue.Value, x any) error {
	return decodeValue(v, reflect.ValueOf(x).Elem())
}

var unmarshaler = reflect.TypeFor[json.Unmarshaler]()

func decodeValue(v cue.Value, x reflect.Value) error {
	v, _ = v.Default()
	if err := v.Err(); err != nil {
		return err
	}
	if reflect.PointerTo(x.Type()).Implements(unmarshaler) || x.Kind() == reflect.Interface {
		return v.Decode(x.Addr().Interface())
	}
	switch x.Kind() {
	case reflect.Pointer, reflect.Map, reflect.Slice:
		if v.IsNull() || !v.IsConcrete() {
			x.SetZero()
			return nil
		}
	default:
		if !v.IsConcrete() {
			return fmt.Errorf("%s: incomplete value", v.Path())
		}
	}
	switch x.Kind() {
	case reflect.Pointer:
		p := reflect.New(x.Type().Elem())
		if err := decodeValue(v, p.Elem()); err != nil {
			return err
		}
		x.Set(p)
	case reflect.Struct:
		return decodeStruct(v, x)
	case reflect.Map:
		return decodeMap(v, x)
	case reflect.Slice:
		return decodeSlice(v, x)
	case reflect.String:
		s, err := v.String()
		x.SetString(s)
		return err
	case reflect.Bool:
		b, err := v.Bool()
		x.SetBool(b)
		return err
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		i, err := v.Int64()
		if err != nil || x.OverflowInt(i) {
			return fmt.Errorf("%s: not an %s", v.Path(), x.Kind())
		}
		x.SetInt(i)
	case reflect.Float32, reflect.Float64:
		f, err := v.Float64()
		if err != nil || x.OverflowFloat(f) {
			return fmt.Errorf("%s: not a %s", v.Path(), x.Kind())
		}
		x.SetFloat(f)
	default:
		return v.Decode(x.Addr().Interface())
	}
	return nil
}

func decodeStruct(v cue.Value, x reflect.Value) error {
	if v.IncompleteKind() != cue.StructKind {
		return fmt.Errorf("%s: not a struct", v.Path())
	}
	for _, f := range fieldsOf(x.Type()) {
		sub := v.LookupPath(f.path)
		if !sub.Exists() {
			continue
		}
		if err := decodeValue(sub, x.Field(f.index)); err != nil {
			return err
		}
	}
	return nil
}

func decodeMap(v cue.Value, x reflect.Value) error {
	t := x.Type()
	if t.Key().Kind() != reflect.String {
		return v.Decode(x.Addr().Interface())
	}
	iter, err := v.Fields()
	if err != nil {
		return err
	}
	m := reflect.MakeMap(t)
	for iter.Next() {
		e := reflect.New(t.Elem()).Elem()
		if err := decodeValue(iter.Value(), e); err != nil {
			return err
		}
		m.SetMapIndex(reflect.ValueOf(iter.Selector().Unquoted()).Convert(t.Key()), e)
	}
	x.Set(m)
	return nil
}

func decodeSlice(v cue.Value, x reflect.Value) error {
	iter, err := v.List()
	if err != nil {
		return err
	}
	var elems []cue.Value
	for iter.Next() {
		elems = append(elems, iter.Value())
	}
	s := reflect.MakeSlice(x.Type(), len(elems), len(elems))
	for i, e := range elems {
		if err := decodeValue(e, s.Index(i)); err != nil {
			return err
		}
	}
	x.Set(s)
	return nil
}

// goField is a struct field CUE decodes: its index and the path of its
// JSON name.
type goField struct {
	index int
	path  cue.Path
}

var goFields sync.Map // reflect.Type → []goField

// fieldsOf lists the fields of t that have a JSON name, with their
// paths. The profile's structs name every field; a field without a tag
// would need CUE's case-insensitive match, so the decoder refuses such a
// type.
func fieldsOf(t reflect.Type) []goField {
	if fs, ok := goFields.Load(t); ok {
		return fs.([]goField)
	}
	named, err := jsonfields.Of(t)
	if err != nil {
		panic("load: " + err.Error())
	}
	fs := make([]goField, len(named))
	for i, f := range named {
		fs[i] = goField{f.Index, cue.MakePath(cue.Str(f.Name))}
	}
	goFields.Store(t, fs)
	return fs
}
