package fieldpos

import (
	"cuelang.org/go/cue"
	"github.com/google/go-jsonnet/ast"

	"github.com/karpgen/karpgen/internal/diag"
)

// FromLoc is a Jsonnet location as a finding's position; fallback names
// the file when the location does not.
func FromLoc(l ast.LocationRange, fallback string) diag.Pos {
	file := l.FileName
	if file == "" {
		file = fallback
	}
	if l.Begin.Line == 0 {
		return diag.Pos{File: file}
	}
	return diag.Pos{File: file, Line: l.Begin.Line, Col: l.Begin.Column}
}

// Jsonnet is a Jsonnet profile's syntax tree.
type Jsonnet struct {
	Root ast.Node
	Path string // as findings show it
}

// Pos finds where the field at sels (below the file's top level) was
// written: it follows object literals, `+` and `{...}` extensions (right
// side first, as the right side wins), locals and parentheses, and stops
// at the deepest field it can reach.
func (j *Jsonnet) Pos(sels []cue.Selector) diag.Pos {
	best := diag.Pos{File: j.Path, Line: 1, Col: 1}
	locate(j.Root, sels, map[string]ast.Node{}, &best, j.Path, 0)
	return best
}

func locate(n ast.Node, sels []cue.Selector, scope map[string]ast.Node, best *diag.Pos, file string, depth int) bool {
	if n == nil || depth > 64 {
		return false
	}
	if len(sels) == 0 {
		return true
	}
	switch n := n.(type) {
	case *ast.Local:
		inner := with(scope, n.Binds)
		return locate(n.Body, sels, inner, best, file, depth+1)
	case *ast.Conditional:
		// `field+: v` becomes `if "field" in super then super.field + v else v`.
		return locate(n.BranchTrue, sels, scope, best, file, depth+1) || locate(n.BranchFalse, sels, scope, best, file, depth+1)
	case *ast.Apply:
		if v, ok := n.Target.(*ast.Var); ok {
			if fn, ok := scope[string(v.Id)].(*ast.Function); ok {
				return locate(fn.Body, sels, scope, best, file, depth+1)
			}
		}
	case *ast.DesugaredObject:
		inner := with(scope, n.Locals)
		for _, fl := range n.Fields {
			if name, ok := fl.Name.(*ast.LiteralString); ok && sels[0].Type() == cue.StringLabel && name.Value == sels[0].Unquoted() {
				*best = FromLoc(fl.LocRange, file)
				locate(fl.Body, sels[1:], inner, best, file, depth+1)
				return true
			}
		}
	case *ast.Parens:
		return locate(n.Inner, sels, scope, best, file, depth+1)
	case *ast.Var:
		if def, ok := scope[string(n.Id)]; ok {
			return locate(def, sels, scope, best, file, depth+1)
		}
	case *ast.Binary:
		if n.Op == ast.BopPlus {
			return locate(n.Right, sels, scope, best, file, depth+1) || locate(n.Left, sels, scope, best, file, depth+1)
		}
	case *ast.ApplyBrace:
		return locate(n.Right, sels, scope, best, file, depth+1) || locate(n.Left, sels, scope, best, file, depth+1)
	case *ast.Array:
		if sels[0].Type() != cue.IndexLabel {
			return false
		}
		i := sels[0].Index()
		if i >= len(n.Elements) {
			return false
		}
		e := n.Elements[i].Expr
		*best = FromLoc(*e.Loc(), file)
		locate(e, sels[1:], scope, best, file, depth+1)
		return true
	case *ast.Object:
		for _, fl := range n.Fields {
			if fl.Kind == ast.ObjectLocal && fl.Id != nil {
				scope = with(scope, ast.LocalBinds{{Variable: *fl.Id, Body: fl.Expr2}})
			}
		}
		for _, fl := range n.Fields {
			if name, ok := fieldName(fl); ok && sels[0].Type() == cue.StringLabel && name == sels[0].Unquoted() {
				*best = FromLoc(fl.LocRange, file)
				locate(fl.Expr2, sels[1:], scope, best, file, depth+1)
				return true
			}
		}
	}
	return false
}

func with(scope map[string]ast.Node, binds ast.LocalBinds) map[string]ast.Node {
	out := make(map[string]ast.Node, len(scope)+len(binds))
	for k, v := range scope {
		out[k] = v
	}
	for _, b := range binds {
		out[string(b.Variable)] = b.Body
	}
	return out
}

func fieldName(f ast.ObjectField) (string, bool) {
	switch f.Kind {
	case ast.ObjectFieldID:
		if f.Id != nil {
			return string(*f.Id), true
		}
	case ast.ObjectFieldStr, ast.ObjectFieldExpr:
		if s, ok := f.Expr1.(*ast.LiteralString); ok {
			return s.Value, true
		}
	}
	return "", false
}
