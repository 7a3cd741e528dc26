// Package jsonfields reads the `json` tags of a struct: which fields
// encoding/json reads and writes, under which names, and which it leaves
// out when empty. The decoder of profiles, the encoder of generated
// objects and the Kubelet's own JSON reading share it.
package jsonfields

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
)

// Field is a struct field with a JSON name.
type Field struct {
	Index     int
	Name      string
	OmitEmpty bool
}

var cache sync.Map // reflect.Type → []Field

// Of lists the exported fields of the struct type t that have a JSON
// name ("-" leaves a field out). Every other exported field must be
// named: a field without a tag, or an embedded one, is an error, for a
// type read or written under names it does not say.
func Of(t reflect.Type) ([]Field, error) {
	if fs, ok := cache.Load(t); ok {
		return fs.([]Field), nil
	}
	var fs []Field
	for i := range t.NumField() {
		f := t.Field(i)
		name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		switch {
		case !f.IsExported() || name == "-":
			continue
		case name == "" || f.Anonymous:
			return nil, fmt.Errorf("%s.%s has no JSON name", t, f.Name)
		}
		fs = append(fs, Field{i, name, slices.Contains(strings.Split(opts, ","), "omitempty")})
	}
	cache.Store(t, fs)
	return fs, nil
}
