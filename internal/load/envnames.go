package load

import (
	"cuelang.org/go/cue/ast"
	"cuelang.org/go/cue/parser"

	"github.com/karpgen/karpgen/internal/diag"
)

// DefinedEnvironments are the environments a CUE file of a profiles
// package names at its top level, as `environments: prod: ...` or
// `environments: {prod: ...}`, with where each is named; a name written
// as a pattern or an expression is not one of them. It reads the file's
// syntax only, so it answers for a package that does not evaluate too:
// init asks it before it adds a file beside the team's own.
func DefinedEnvironments(file string, src []byte) (map[string]diag.Pos, error) {
	out := map[string]diag.Pos{}
	err := eachTopField(file, src, func(name string, field *ast.Field) {
		if name == "environments" {
			collectEnvs(field.Value, out)
		}
	})
	return out, err
}

// eachTopField parses a file and calls fn for each field at its top
// level whose label has a name.
func eachTopField(file string, src []byte, fn func(name string, field *ast.Field)) error {
	f, err := parser.ParseFile(file, src)
	if err != nil {
		return err
	}
	for _, d := range f.Decls {
		if field, ok := d.(*ast.Field); ok {
			if name, _, err := ast.LabelName(field.Label); err == nil && name != "" {
				fn(name, field)
			}
		}
	}
	return nil
}

// collectEnvs adds the regular fields of a struct literal (or of each
// struct of a unification) to out.
func collectEnvs(x ast.Expr, out map[string]diag.Pos) {
	switch x := x.(type) {
	case *ast.StructLit:
		for _, d := range x.Elts {
			f, ok := d.(*ast.Field)
			if !ok {
				continue
			}
			name, _, err := ast.LabelName(f.Label)
			if err != nil || name == "" || name[0] == '_' || name[0] == '#' {
				continue
			}
			if _, seen := out[name]; !seen {
				p := f.Label.Pos()
				out[name] = diag.Pos{File: p.Filename(), Line: p.Line(), Col: p.Column()}
			}
		}
	case *ast.BinaryExpr:
		collectEnvs(x.X, out)
		collectEnvs(x.Y, out)
	case *ast.ParenExpr:
		collectEnvs(x.X, out)
	}
}

// TopLevelFields lists the fields a CUE file declares at its top level
// other than environments (hidden ones such as _base and definitions
// included), with their positions: two files of one package that both
// declare one are unified, each changing the other's.
func TopLevelFields(file string, src []byte) (map[string]diag.Pos, error) {
	out := map[string]diag.Pos{}
	err := eachTopField(file, src, func(name string, field *ast.Field) {
		if _, seen := out[name]; !seen && name != "environments" {
			p := field.Label.Pos()
			out[name] = diag.Pos{File: p.Filename(), Line: p.Line(), Col: p.Column()}
		}
	})
	return out, err
}
