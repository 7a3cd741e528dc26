package load

import (
	"io/fs"

	"cuelang.org/go/cue/ast"
	"cuelang.org/go/cue/parser"
)

// Pruning: a command about some environments (build, vet or render of
// named environments) need not evaluate the others. Before the package is
// built, the fields of the top-level `environments` struct that name
// other environments are dropped from the syntax trees, so a profile
// package of a thousand environments costs about what a package of one
// does. Only a package that never refers to `environments` (other than to
// declare it) is pruned; any reference keeps every file whole.

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
	for _, name := range names {
		src, err := fs.ReadFile(dir.FS, name)
		if err != nil {
			return nil
		}
		f, err := parser.ParseFile(dir.show(name), src, parser.ParseComments)
		if err != nil || refersToEnvironments(f) {
			return nil
		}
		files[dir.show(name)] = f
	}
	for _, f := range files {
		for _, d := range f.Decls {
			field, ok := d.(*ast.Field)
			if !ok || labelName(field.Label) != "environments" {
				continue
			}
			if s, ok := field.Value.(*ast.StructLit); ok {
				s.Elts = keepEnvironments(s.Elts, want)
			}
		}
	}
	return files
}

// keepEnvironments drops the fields of concrete names not in want.
func keepEnvironments(elts []ast.Decl, want map[string]bool) []ast.Decl {
	out := elts[:0]
	for _, d := range elts {
		if f, ok := d.(*ast.Field); ok {
			if name, _, err := ast.LabelName(f.Label); err == nil && !want[name] {
				continue
			}
		}
		out = append(out, d)
	}
	return out
}

// refersToEnvironments reports an identifier `environments` anywhere but
// as the label of a top-level field.
func refersToEnvironments(f *ast.File) bool {
	labels := map[ast.Node]bool{}
	for _, d := range f.Decls {
		if field, ok := d.(*ast.Field); ok {
			labels[field.Label] = true
		}
	}
	found := false
	ast.Walk(f, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok && id.Name == "environments" && !labels[id] {
			found = true
		}
		return !found
	}, nil)
	return found
}

func labelName(l ast.Label) string {
	name, _, err := ast.LabelName(l)
	if err != nil {
		return ""
	}
	return name
}
