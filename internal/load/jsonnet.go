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
	"github.com/karpgen/karpgen/internal/fieldpos"
)

// jsonnetFile is one evaluated profiles/*.jsonnet file: its
// `environments`, and its syntax tree to find where a field was written.
type jsonnetFile struct {
	tree  *fieldpos.Jsonnet
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
	return &jsonnetFile{tree: &fieldpos.Jsonnet{Root: ej.root, Path: ej.path}, value: v}, nil
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
					f.Pos = fieldpos.FromLoc(loc, path)
				} else if p := fieldpos.FromLoc(loc, path); p != f.Pos && !slices.Contains(f.Also, p) && len(f.Also) < maxFrames {
					f.Also = append(f.Also, p)
				}
			}
		}
	case errors.As(err, &static):
		f.Pos = fieldpos.FromLoc(static.Loc(), path)
	}
	return f
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
