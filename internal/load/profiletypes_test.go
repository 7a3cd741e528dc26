package load

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/karpgen/karpgen/internal/profile"
)

// TestProfileTypesFollowSchema: the decoded form of a profile
// (profile.Profile, which render and vet read) has a field for every
// field the schema declares, and declares none the schema lacks, so that
// a field added to the schema cannot be dropped on decoding (CUE's Decode
// skips what a Go type has no field for) and the Go form states nothing
// of its own.
func TestProfileTypesFollowSchema(t *testing.T) {
	fields, err := Reference()
	if err != nil {
		t.Fatal(err)
	}
	schema := map[string]bool{}
	for _, f := range fields {
		schema[f.Path] = true
		if _, ok := goTypeAt(reflect.TypeFor[profile.Profile](), f.Path); !ok {
			t.Errorf("profile.Profile has no field for the schema's %s", f.Path)
		}
	}
	var walk func(typ reflect.Type, path string, depth int)
	walk = func(typ reflect.Type, path string, depth int) {
		for typ.Kind() == reflect.Pointer {
			typ = typ.Elem()
		}
		switch {
		case depth > 8 || opaque(typ):
		case typ.Kind() == reflect.Map:
			walk(typ.Elem(), path+".*", depth+1)
		case typ.Kind() == reflect.Slice:
			walk(typ.Elem(), path+"[]", depth+1)
		case typ.Kind() == reflect.Struct:
			for i := range typ.NumField() {
				name, _, _ := strings.Cut(typ.Field(i).Tag.Get("json"), ",")
				if name == "-" || name == "" {
					continue
				}
				p := strings.TrimPrefix(path+"."+name, ".")
				if !schema[p] && !sharedTypes[p] {
					t.Errorf("profile.Profile's %s is not a field of the schema", p)
				}
				walk(typ.Field(i).Type, p, depth+1)
			}
		}
	}
	walk(reflect.TypeFor[profile.Profile](), "", 0)
	if len(schema) < 150 {
		t.Errorf("only %d fields in the schema", len(schema))
	}
}

// sharedTypes are the fields of a Go type that serves two fields of the
// schema, one of which lacks them: one SelectorTerm reads subnets and
// security groups, and only a security group is selected by name.
var sharedTypes = map[string]bool{"nodeClasses.*.subnetSelectorTerms[].name": true}

// goTypeAt follows a reference path (a.*.b[].c) through Go types by their
// JSON names; a type that decodes itself, or any value, holds whatever
// is below it.
func goTypeAt(typ reflect.Type, path string) (reflect.Type, bool) {
	parts := strings.Split(strings.ReplaceAll(path, "[]", ".[]"), ".")
	for _, part := range parts {
		for typ.Kind() == reflect.Pointer {
			typ = typ.Elem()
		}
		if opaque(typ) {
			return typ, true
		}
		switch {
		case part == "[]" && typ.Kind() == reflect.Slice:
			typ = typ.Elem()
		case part != "[]" && typ.Kind() == reflect.Map && typ.Key().Kind() == reflect.String:
			// A map holds the names of a pattern and named fields alike
			// (the controller's requests: cpu, memory).
			typ = typ.Elem()
		case typ.Kind() == reflect.Struct:
			i := slices.IndexFunc(reflect.VisibleFields(typ), func(f reflect.StructField) bool {
				name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
				return name == part
			})
			if i < 0 {
				return nil, false
			}
			typ = reflect.VisibleFields(typ)[i].Type
		default:
			return nil, false
		}
	}
	return typ, true
}

// opaque is a type that holds any value, or decodes itself (the kubelet,
// which keeps the fields it does not name).
func opaque(typ reflect.Type) bool {
	return typ.Kind() == reflect.Interface || reflect.PointerTo(typ).Implements(reflect.TypeFor[json.Unmarshaler]())
}
