// Package form is a karpgen profile as a user writes it: the Go types of
// schema/profile.cue's #Profile (types.go, which go generate writes from
// the schema), every field one the user may leave out. Code that writes
// a profile builds these, and File prints them through CUE's own encoder
// and formatter, so that what it writes has the schema's shape by
// construction.
package form

//go:generate go run ../../../hack/profiletypes

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"cuelang.org/go/cue"
	"cuelang.org/go/cue/ast"
	"cuelang.org/go/cue/ast/astutil"
	"cuelang.org/go/cue/cuecontext"
	"cuelang.org/go/cue/format"
	"cuelang.org/go/cue/token"
)

// File is a CUE file of the profiles package that holds p as environment
// env: the header's comment lines, then `environments: <env>: {...}`, the
// fields in the schema's order and the names of maps sorted.
func File(header []string, env string, p *Profile) ([]byte, error) {
	v := cuecontext.New().Encode(map[string]*Profile{env: p})
	if err := v.Err(); err != nil {
		return nil, err
	}
	value, ok := v.Syntax(cue.Final(), cue.Concrete(true)).(ast.Expr)
	if !ok {
		return nil, fmt.Errorf("the profile of %s is not a value", env)
	}
	structsOneALine(value)
	pkg := &ast.Package{Name: ast.NewIdent("profiles")}
	if len(header) > 0 {
		doc := &ast.CommentGroup{Doc: true}
		for _, l := range header {
			doc.List = append(doc.List, &ast.Comment{Text: l})
		}
		ast.AddComment(pkg, doc)
	}
	field := &ast.Field{Label: ast.NewIdent("environments"), Value: value}
	ast.SetRelPos(field, token.NewSection)
	return format.Node(&ast.File{Decls: []ast.Decl{pkg, field}}, format.Simplify())
}

// structsOneALine puts each element of a list of structs on a line of its
// own, as a reader scans a list of taints or devices; lists of scalars
// stay on one line.
func structsOneALine(n ast.Node) {
	astutil.Apply(n, func(c astutil.Cursor) bool {
		l, ok := c.Node().(*ast.ListLit)
		if !ok {
			return true
		}
		if !slices.ContainsFunc(l.Elts, func(e ast.Expr) bool { _, ok := e.(*ast.StructLit); return ok }) {
			return true
		}
		for _, e := range l.Elts {
			if s, ok := e.(*ast.StructLit); ok {
				s.Lbrace = token.Newline.Pos()
				s.Rbrace = token.Newline.Pos()
			} else {
				ast.SetRelPos(e, token.Newline)
			}
		}
		l.Rbrack = token.Newline.Pos()
		return true
	}, nil)
}

// Field is the field of the struct s whose JSON name is label.
func Field(s reflect.Value, label string) (reflect.Value, bool) {
	for i := range s.NumField() {
		if name, _, _ := strings.Cut(s.Type().Field(i).Tag.Get("json"), ","); name == label {
			return s.Field(i), true
		}
	}
	return reflect.Value{}, false
}

// Decode reads the plain value v into dst, a pointer to one of the
// package's types (or a list or map of them). A field dst's type does
// not have is an error that names it.
func Decode(v any, dst any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	dec.UseNumber()
	if err := dec.Decode(dst); err != nil {
		return fmt.Errorf("%s", strings.TrimPrefix(err.Error(), "json: "))
	}
	numbers(reflect.ValueOf(dst))
	return nil
}

// numbers turns the JSON numbers of the `any` values under v (a quantity,
// a limit) into ints where they are whole and floats otherwise, so that
// 1000 prints as 1000, never as "1000" or 1000.0.
func numbers(v reflect.Value) {
	switch v.Kind() {
	case reflect.Pointer:
		if !v.IsNil() {
			numbers(v.Elem())
		}
	case reflect.Struct:
		for i := range v.NumField() {
			numbers(v.Field(i))
		}
	case reflect.Slice:
		for i := range v.Len() {
			numbers(v.Index(i))
		}
	case reflect.Map:
		for _, k := range v.MapKeys() {
			e := reflect.New(v.Type().Elem()).Elem()
			e.Set(v.MapIndex(k))
			numbers(e)
			v.SetMapIndex(k, e)
		}
	case reflect.Interface:
		if v.IsNil() {
			return
		}
		x := v.Elem().Interface()
		if n, ok := x.(json.Number); ok {
			if i, err := n.Int64(); err == nil {
				v.Set(reflect.ValueOf(int(i)))
			} else if f, err := n.Float64(); err == nil {
				v.Set(reflect.ValueOf(f))
			}
			return
		}
		e := reflect.New(v.Elem().Type()).Elem()
		e.Set(v.Elem())
		numbers(e)
		v.Set(e)
	}
}

// Ptr is a pointer to v, for the fields a user may leave out.
func Ptr[T any](v T) *T { return &v }

// Has reports whether the field of the struct dst points to whose JSON
// name is label is set (not nil, not "").
func Has(dst any, label string) bool {
	f, ok := Field(reflect.ValueOf(dst).Elem(), label)
	return ok && !f.IsZero()
}
