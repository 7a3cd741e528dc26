// Package cueshape reads the shape of a CUE schema rather than a value's:
// the element of a list field past its default, the value of a struct's
// fields by pattern, whether it names fields, and a field's comment. The explainer of errors, the field
// reference and the generator of the profile's Go types read the schema
// through it, so that they agree on what a field holds.
package cueshape

import (
	"strings"

	"cuelang.org/go/cue"
	"cuelang.org/go/cue/cuecontext"
)

// ListElem is the element of a list field, past a default: for
// *["on-demand"] | [...("on-demand" | "spot" | "reserved")], the choice.
func ListElem(v cue.Value) cue.Value {
	list := v
	switch op, args := v.Expr(); {
	case op == cue.NoOp && len(args) == 1:
		list = args[0]
	case op == cue.OrOp:
		// The open list of the choice ([...#Budget] beside a default
		// list of one budget).
		list = OpenBranch(v)
	}
	return list.LookupPath(cue.MakePath(cue.AnyIndex))
}

// Elem is the element of a list field as ListElem reads it, and through
// the conjuncts of a field declared twice (the profile's default selector
// terms beside the node class's [...#SubnetTerm]).
func Elem(v cue.Value) cue.Value {
	if e := ListElem(v); e.Exists() {
		return e
	}
	if op, args := v.Expr(); op == cue.AndOp || op == cue.OrOp {
		for _, a := range args {
			if e := a.LookupPath(cue.MakePath(cue.AnyIndex)); e.Exists() {
				return e
			}
			if e := Elem(a); e.Exists() {
				return e
			}
		}
	}
	return cue.Value{}
}

// OpenBranch is the open list of a choice with a default list, if any.
func OpenBranch(v cue.Value) cue.Value {
	op, args := v.Expr()
	if op != cue.OrOp {
		return cue.Value{}
	}
	for _, a := range args {
		// An open list's length is a bound, a closed one's a number.
		if _, err := a.Len().Int64(); err != nil && a.IncompleteKind() == cue.ListKind {
			return a
		}
	}
	return cue.Value{}
}

// Pattern is the value of a struct's fields by pattern: [string]: X, or
// a pattern of names such as [=~"^[A-Za-z0-9+=,.@_-]{1,64}$"]: X, which
// a lookup of any string does not find. It is what a field of a name the
// struct does not declare becomes: _ where the struct says it takes any
// ({...}, [string]: _), nothing where it is closed or merely open.
func Pattern(v cue.Value) cue.Value {
	if p := v.LookupPath(cue.MakePath(cue.AnyString)); p.Exists() {
		return p
	}
	if v.IncompleteKind() != cue.StructKind {
		return cue.Value{}
	}
	probe := cue.MakePath(cue.Str(probeLabel))
	// A context of its own: the loader's workers read patterns in
	// parallel, and a value shared between them is not CUE's promise.
	filled := v.FillPath(probe, cuecontext.New().CompileString("_"))
	p := filled.LookupPath(probe)
	if filled.Validate() != nil || !p.Exists() || p.IncompleteKind() == cue.TopKind {
		return cue.Value{}
	}
	return p
}

// probeLabel is a name no struct of the schema declares, which a pattern
// of names accepts.
const probeLabel = "cueshape-probe"

// HasFields reports whether a struct declares fields by name.
func HasFields(v cue.Value) bool {
	iter, err := v.Fields(cue.Optional(true))
	return err == nil && iter.Next()
}

// Doc is the schema's comment on a field, as one paragraph.
func Doc(v cue.Value) string {
	var parts []string
	for _, g := range v.Doc() {
		parts = append(parts, strings.Join(strings.Fields(g.Text()), " "))
	}
	return strings.Join(parts, " ")
}
