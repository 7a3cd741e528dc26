package load

import (
	"io/fs"
	"strings"

	"cuelang.org/go/cue/ast"
	"cuelang.org/go/cue/parser"
)

// Pruning: a command about some environments (build, vet or render of
// named environments) need not evaluate the others. Before the package is
// built, the fields of the top-level `environments` struct that name
// other environments are dropped from the syntax trees, so a profile
// package of a thousand environments costs about what a package of one
// does.
//
// Pruning must never change the value of an environment that is kept:
// `build` (what Argo CD applies) must print what `render --check` (what
// CI checked) vouched for. So only regular fields with a plain name are
// ever dropped (hidden fields, definitions, let clauses, aliases,
// patterns and comprehensions stay), and a package is pruned only when
// no identifier anywhere in it, other than a field's own label, spells
// `environments` or the name of a field that would be dropped: a
// reference that could resolve to a dropped field (or, once it is gone,
// to a field of the same name further out) keeps every file whole.

// pruned parses the package's CUE files and returns their syntax trees
// with the environments not in keep dropped, by file name as the loader
// shows it; nil when the package cannot be pruned safely (or does not
// parse: the loader reports that).
func pruned(dir Folder, names []string, keep []string) map[string]*ast.File {
	want := map[string]bool{}
	for _, k := range keep {
		want[k] = true
	}
	files := map[string]*ast.File{}
	refs := map[string]bool{}
	for _, name := range names {
		src, err := fs.ReadFile(dir.FS, name)
		if err != nil {
			return nil
		}
		f, err := parser.ParseFile(dir.show(name), src, parser.ParseComments)
		if err != nil {
			return nil
		}
		references(f, refs)
		files[dir.show(name)] = f
	}
	if refs["environments"] {
		return nil
	}
	type drop struct {
		s          *ast.StructLit
		kept, orig []ast.Decl
	}
	var drops []drop
	for _, f := range files {
		for _, d := range f.Decls {
			field, ok := d.(*ast.Field)
			if !ok || labelName(field.Label) != "environments" {
				continue
			}
			s, ok := field.Value.(*ast.StructLit)
			if !ok {
				continue
			}
			kept, dropped := keepEnvironments(s.Elts, want)
			for _, name := range dropped {
				if refs[name] {
					return nil
				}
			}
			drops = append(drops, drop{s, kept, s.Elts})
		}
	}
	for _, d := range drops {
		d.s.Elts = d.kept
	}
	// A let clause or alias used only by a dropped environment would be
	// an "unreferenced" error of the pruned package alone.
	after := map[string]bool{}
	for _, f := range files {
		references(f, after)
	}
	for _, f := range files {
		if !allBound(f, after) {
			for _, d := range drops {
				d.s.Elts = d.orig
			}
			return nil
		}
	}
	return files
}

// allBound reports whether every let clause and alias of f is referenced.
func allBound(f *ast.File, refs map[string]bool) bool {
	ok := true
	ast.Walk(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.LetClause:
			ok = ok && refs[n.Ident.Name]
		case *ast.Alias:
			ok = ok && refs[n.Ident.Name]
		}
		return ok
	}, nil)
	return ok
}

// keepEnvironments splits the declarations of the environments struct
// into those kept and the names of the regular fields dropped (those not
// in want).
func keepEnvironments(elts []ast.Decl, want map[string]bool) (kept []ast.Decl, dropped []string) {
	for _, d := range elts {
		if name, ok := regularName(d); ok && !want[name] {
			dropped = append(dropped, name)
			continue
		}
		kept = append(kept, d)
	}
	return kept, dropped
}

// regularName is the name of a declaration that is a regular field with
// a plain label (an identifier that is neither hidden nor a definition,
// or a string literal without interpolation).
func regularName(d ast.Decl) (string, bool) {
	f, ok := d.(*ast.Field)
	if !ok {
		return "", false
	}
	switch l := f.Label.(type) {
	case *ast.Ident:
		if strings.HasPrefix(l.Name, "_") || strings.HasPrefix(l.Name, "#") {
			return "", false
		}
		return l.Name, true
	case *ast.BasicLit:
		name, _, err := ast.LabelName(l)
		return name, err == nil
	}
	return "", false
}

// references adds to refs every identifier of f that is not the label
// of a field or the name a let clause or alias declares: the names the
// file refers to.
func references(f *ast.File, refs map[string]bool) {
	labels := map[ast.Node]bool{}
	ast.Walk(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.Field:
			labels[n.Label] = true
		case *ast.LetClause:
			labels[n.Ident] = true
		case *ast.Alias:
			labels[n.Ident] = true
		case *ast.Ident:
			if !labels[n] {
				refs[n.Name] = true
			}
		}
		return true
	}, nil)
}

func labelName(l ast.Label) string {
	name, _, err := ast.LabelName(l)
	if err != nil {
		return ""
	}
	return name
}
