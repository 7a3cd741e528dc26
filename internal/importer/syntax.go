package importer

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"

	"cuelang.org/go/cue/ast"
	"cuelang.org/go/cue/format"
	"cuelang.org/go/cue/token"
)

// profileFile is the imported environment as a CUE file of the profiles
// package, built as CUE syntax and printed by CUE's formatter: header
// comments, then `environments: <env>: {...}`.
func profileFile(header []string, env string, v map[string]any) ([]byte, error) {
	value, err := syntax(map[string]any{env: v})
	if err != nil {
		return nil, err
	}
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

// syntax is a plain value (the importer's maps, lists and scalars) as CUE
// syntax: structs with sorted fields, one a line; lists of scalars on one
// line, lists of structs one element a line.
func syntax(v any) (ast.Expr, error) {
	switch v := v.(type) {
	case map[string]any:
		s := &ast.StructLit{Lbrace: token.NoSpace.Pos(), Rbrace: token.Newline.Pos()}
		for _, k := range slices.Sorted(maps.Keys(v)) {
			x, err := syntax(v[k])
			if err != nil {
				return nil, err
			}
			f := &ast.Field{Label: ast.NewStringLabel(k), Value: x}
			ast.SetRelPos(f, token.Newline)
			s.Elts = append(s.Elts, f)
		}
		return s, nil
	case map[string]map[string]any:
		return syntax(anyMap(v))
	case map[string]string:
		return syntax(anyMap(v))
	case []any:
		l := &ast.ListLit{}
		nested := slices.ContainsFunc(v, func(x any) bool {
			switch x.(type) {
			case map[string]any, []any, map[string]string:
				return true
			}
			return false
		})
		for _, x := range v {
			e, err := syntax(x)
			if err != nil {
				return nil, err
			}
			if nested {
				ast.SetRelPos(e, token.Newline)
			}
			l.Elts = append(l.Elts, e)
		}
		if nested {
			l.Rbrack = token.Newline.Pos()
		}
		return l, nil
	case []string:
		return syntax(anyList(v))
	case []int:
		return syntax(anyList(v))
	case string:
		return ast.NewString(v), nil
	case bool:
		return ast.NewBool(v), nil
	case nil:
		return ast.NewNull(), nil
	}
	data, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var n json.Number
	if err := json.Unmarshal(data, &n); err != nil {
		return nil, fmt.Errorf("importing %v: not a plain value", v)
	}
	if _, err := n.Int64(); err == nil {
		return ast.NewLit(token.INT, n.String()), nil
	}
	return ast.NewLit(token.FLOAT, n.String()), nil
}

func anyMap[V any](m map[string]V) map[string]any {
	out := make(map[string]any, len(m))
	for k, x := range m {
		out[k] = x
	}
	return out
}

func anyList[V any](l []V) []any {
	out := make([]any, len(l))
	for i, x := range l {
		out[i] = x
	}
	return out
}
