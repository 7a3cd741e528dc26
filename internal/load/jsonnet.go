package load

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"slices"

	"cuelang.org/go/cue"
	cuejson "cuelang.org/go/encoding/json"
	"github.com/google/go-jsonnet"
	"github.com/google/go-jsonnet/ast"

	"github.com/karpgen/karpgen/internal/diag"
)

// jsonnetFile is one evaluated profiles/*.jsonnet file: its
// `environments`, and its syntax tree to find where a field was written.
type jsonnetFile struct {
	path  string
	root  ast.Node
	value cue.Value
}

// evaluatedJsonnet is a Jsonnet profile evaluated once, to be compiled in
// each worker's CUE context.
type evaluatedJsonnet struct {
	path string
	root ast.Node
	json []byte
}

// build compiles the evaluated JSON in a CUE context.
func (ej *evaluatedJsonnet) build(ctx *cue.Context) (*jsonnetFile, []diag.Finding) {
	expr, err := cuejson.Extract(ej.path, ej.json)
	if err != nil {
		return nil, []diag.Finding{jsonnetFinding(ej.path, err)}
	}
	v := ctx.BuildExpr(expr)
	if err := v.Err(); err != nil {
		return nil, []diag.Finding{jsonnetFinding(ej.path, err)}
	}
	return &jsonnetFile{path: ej.path, root: ej.root, value: v}, nil
}

// evalJsonnet evaluates a Jsonnet profile of the folder. Problems are
// findings at their Jsonnet positions. Imports are read from the folder.
func evalJsonnet(dir Folder, name string) (*evaluatedJsonnet, []diag.Finding) {
	path := dir.show(name)
	src, err := fs.ReadFile(dir.FS, name)
	if err != nil {
		return nil, []diag.Finding{{Rule: "jsonnet", Severity: diag.Error, Message: err.Error(), Pos: diag.Pos{File: path}}}
	}
	root, err := jsonnet.SnippetToAST(path, string(src))
	if err != nil {
		return nil, []diag.Finding{jsonnetFinding(path, err)}
	}
	vm := jsonnet.MakeVM()
	vm.MaxStack = maxJsonnetStack
	vm.Importer(&folderImporter{dir: dir})
	out, err := vm.Evaluate(root)
	if err != nil {
		return nil, []diag.Finding{jsonnetFinding(path, err)}
	}
	return &evaluatedJsonnet{path: path, root: root, json: []byte(out)}, nil
}

// jsonnetFinding turns a Jsonnet error into a finding at its position.
func jsonnetFinding(path string, err error) diag.Finding {
	f := diag.Finding{Rule: "jsonnet", Severity: diag.Error, Message: err.Error(), Pos: diag.Pos{File: path}}
	var rt jsonnet.RuntimeError
	var static interface{ Loc() ast.LocationRange }
	switch {
	case errors.As(err, &rt):
		// The trace runs from the outermost frame to the innermost, where
		// the error was raised; the frames around it are the call sites.
		f.Message = rt.Msg
		for i := len(rt.StackTrace) - 1; i >= 0; i-- {
			if loc := rt.StackTrace[i].Loc; loc.Begin.Line > 0 {
				if !f.Pos.IsValid() || f.Pos.Line == 0 {
					f.Pos = fromLoc(loc, path)
				} else if p := fromLoc(loc, path); p != f.Pos && !slices.Contains(f.Also, p) && len(f.Also) < maxFrames {
					f.Also = append(f.Also, p)
				}
			}
		}
	case errors.As(err, &static):
		f.Pos = fromLoc(static.Loc(), path)
	}
	return f
}

func fromLoc(l ast.LocationRange, fallback string) diag.Pos {
	file := l.FileName
	if file == "" {
		file = fallback
	}
	if l.Begin.Line == 0 {
		return diag.Pos{File: file}
	}
	return diag.Pos{File: file, Line: l.Begin.Line, Col: l.Begin.Column}
}

// pos finds where the field at sels (below the file's top level) was
// written: it follows object literals, `+` and `{...}` extensions (right
// side first, as the right side wins), locals and parentheses, and stops
// at the deepest field it can reach.
func (f *jsonnetFile) pos(sels []cue.Selector) diag.Pos {
	best := diag.Pos{File: f.path, Line: 1, Col: 1}
	locate(f.root, sels, map[string]ast.Node{}, &best, f.path, 0)
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
				*best = fromLoc(fl.LocRange, file)
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
		*best = fromLoc(*e.Loc(), file)
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
				*best = fromLoc(fl.LocRange, file)
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

// maxFrames is how many distinct call sites a Jsonnet error lists.
const maxFrames = 8

// maxJsonnetStack bounds the depth of a Jsonnet evaluation (stack frames):
// deeper recursion fails at its position instead of exhausting memory.
const maxJsonnetStack = 500

// folderImporter serves Jsonnet imports from the profiles folder only:
// a path is resolved against the importing file's folder and must stay
// inside the profiles folder.
type folderImporter struct {
	dir   Folder
	cache map[string]jsonnet.Contents
}

func (im *folderImporter) Import(importedFrom, importedPath string) (jsonnet.Contents, string, error) {
	if path.IsAbs(importedPath) || filepath.IsAbs(importedPath) {
		return jsonnet.Contents{}, "", fmt.Errorf("import %q: imports are paths inside the profiles folder, not absolute paths", importedPath)
	}
	from := "."
	if importedFrom != "" {
		rel, err := filepath.Rel(im.dir.Path, filepath.Dir(importedFrom))
		if err != nil {
			return jsonnet.Contents{}, "", fmt.Errorf("import %q: %w", importedPath, err)
		}
		from = filepath.ToSlash(rel)
	}
	name := path.Join(from, importedPath)
	if !fs.ValidPath(name) {
		return jsonnet.Contents{}, "", fmt.Errorf("import %q: the path leaves the profiles folder", importedPath)
	}
	shown := im.dir.show(name)
	if c, ok := im.cache[name]; ok {
		return c, shown, nil
	}
	data, err := fs.ReadFile(im.dir.FS, name)
	if _, ok := escaped(fmt.Sprint(err)); ok {
		return jsonnet.Contents{}, "", fmt.Errorf("import %q: the path leaves the profiles folder (symbolic links are resolved)", importedPath)
	}
	if err != nil {
		return jsonnet.Contents{}, "", fmt.Errorf("import %q: %w", importedPath, err)
	}
	if im.cache == nil {
		im.cache = map[string]jsonnet.Contents{}
	}
	c := jsonnet.MakeContents(string(data))
	im.cache[name] = c
	return c, shown, nil
}
