package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"reflect"
	"slices"
	"strconv"
	"strings"
)

const typesFile = "config/v1beta1/types.go"

// Fields reads KubeletConfiguration and returns fields.tsv and SOURCE.
// Each line is a JSON path ("memorySwap.swapBehavior", "[]" for list
// items) and its kind: bool, integer, number, string, duration, object,
// open object (a type of another module, whose fields are not listed),
// or a list or map of one of them.
func Fields(src fs.FS, label string) (map[string][]byte, error) {
	data, err := fs.ReadFile(src, typesFile)
	if err != nil {
		return nil, err
	}
	f, err := parser.ParseFile(token.NewFileSet(), typesFile, data, parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	types := map[string]ast.Expr{}
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.TYPE {
			continue
		}
		for _, s := range g.Specs {
			ts := s.(*ast.TypeSpec)
			types[ts.Name.Name] = ts.Type
		}
	}
	root, ok := types["KubeletConfiguration"].(*ast.StructType)
	if !ok {
		return nil, fmt.Errorf("%s: no KubeletConfiguration struct", typesFile)
	}
	var lines []string
	var walk func(prefix string, st *ast.StructType, depth int) error
	walk = func(prefix string, st *ast.StructType, depth int) error {
		for _, field := range st.Fields.List {
			name, inline := jsonName(field)
			if name == "-" {
				continue
			}
			if inline || name == "" && len(field.Names) == 0 {
				// The embedded metav1.TypeMeta: apiVersion and kind.
				lines = append(lines, prefix+"apiVersion\tstring", prefix+"kind\tstring")
				continue
			}
			if name == "" {
				return fmt.Errorf("%s: a field without a JSON name", prefix)
			}
			kind, sub := kindOf(field.Type, types)
			lines = append(lines, prefix+name+"\t"+kind)
			if sub != nil && depth < 4 {
				p := prefix + name + "."
				if strings.HasPrefix(kind, "[]") {
					p = prefix + name + "[]."
				}
				if err := walk(p, sub, depth+1); err != nil {
					return err
				}
			}
		}
		return nil
	}
	if err := walk("", root, 0); err != nil {
		return nil, err
	}
	slices.Sort(lines)
	source := fmt.Sprintf("# The fields of the upstream KubeletConfiguration (k8s.io/kubelet %s), Apache-2.0.\n"+
		"# Written by `go run ./hack/kubeletfields` from %s; do not edit.\n", typesFile, label)
	return map[string][]byte{
		"fields.tsv": []byte("# path\tkind\n" + strings.Join(lines, "\n") + "\n"),
		"SOURCE":     []byte(source),
	}, nil
}

// jsonName is the field's JSON name, and whether it is inlined.
func jsonName(f *ast.Field) (string, bool) {
	if f.Tag == nil {
		return "", false
	}
	tag, _ := strconv.Unquote(f.Tag.Value)
	name, opts, _ := strings.Cut(reflect.StructTag(tag).Get("json"), ",")
	return name, strings.Contains(opts, "inline")
}

// kindOf names a field's JSON kind, and the struct to descend into.
func kindOf(e ast.Expr, types map[string]ast.Expr) (string, *ast.StructType) {
	switch t := e.(type) {
	case *ast.StarExpr:
		return kindOf(t.X, types)
	case *ast.Ident:
		switch t.Name {
		case "bool":
			return "bool", nil
		case "int", "int32", "int64", "uint32", "uint64":
			return "integer", nil
		case "float32", "float64":
			return "number", nil
		case "string":
			return "string", nil
		}
		switch def := types[t.Name].(type) {
		case *ast.StructType:
			return "object", def
		case nil:
			return "open object", nil
		default:
			return kindOf(def, types)
		}
	case *ast.SelectorExpr:
		if t.Sel.Name == "Duration" {
			return "duration", nil
		}
		return "open object", nil
	case *ast.ArrayType:
		k, sub := kindOf(t.Elt, types)
		return "[]" + k, sub
	case *ast.MapType:
		k, _ := kindOf(t.Value, types)
		return "map[string]" + k, nil
	}
	return "open object", nil
}
