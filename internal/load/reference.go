package load

//go:generate go run ../../hack/gendocs profile

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"cuelang.org/go/cue"
	"cuelang.org/go/cue/cuecontext"
	"cuelang.org/go/cue/format"

	"github.com/karpgen/karpgen/internal/util/cueshape"
	"github.com/karpgen/karpgen/schema"
)

// Field is one field of a profile as the schema declares it, for the
// field reference (docs/profile.md).
type Field struct {
	// Path is dotted from the profile: * stands for a name of the
	// profile's own (a map key), [] for a list's element.
	Path string
	// Type says in words what the field takes.
	Type string
	// Default is the CUE text of the default; "" for none.
	Default string
	// Required is a field a profile must set.
	Required bool
	// Doc is the schema's comment on the field.
	Doc string
	// Example is the example a finding about the field shows, if any:
	// a required field's is the schema's @example of the field or of the
	// nearest field around it.
	Example string
	// Since is the first Karpenter minor with the field (the schema's
	// @since), "" for a field every minor has; Gate, Kind and CRDPath
	// are the rest of the attribute (see facts.Feature).
	Since, Gate, Kind, CRDPath string
}

// Reference walks the schema's #Profile, field by field, depth first in
// the schema's order.
func Reference() ([]Field, error) {
	s := cuecontext.New().CompileBytes(schema.Source(), cue.Filename(schema.Filename))
	if err := s.Err(); err != nil {
		return nil, err
	}
	var out []Field
	var walk func(v cue.Value, path, example string, depth int)
	walk = func(v cue.Value, path, example string, depth int) {
		if depth > 12 {
			return
		}
		iter, err := v.Fields(cue.Optional(true))
		if err != nil {
			return
		}
		for iter.Next() {
			f := iter.Value()
			p := iter.Selector().Unquoted()
			if path != "" {
				p = path + "." + p
			}
			def, hasDefault := f.Default()
			field := Field{Path: p, Type: typeWords(f), Doc: cueshape.Doc(f)}
			switch {
			case !hasDefault || !def.IsConcrete() || sameValue(def, f):
			case def.Validate(cue.Concrete(true)) != nil:
				field.Default = "derived from the profile"
			default:
				field.Default = cueText(def)
			}
			field.Required = !iter.IsOptional() && !hasDefault && f.IncompleteKind()&(cue.StructKind|cue.ListKind) == 0 && !f.IsConcrete()
			own := example
			if a := f.Attribute("example"); a.Err() == nil {
				if own, err = a.String(0); err != nil {
					return
				}
			}
			if field.Required {
				field.Example = own
			}
			if a := f.Attribute("since"); a.Err() == nil {
				field.Since, _ = a.String(0)
				field.Gate, _, _ = a.Lookup(1, "gate")
				field.Kind, _, _ = a.Lookup(1, "kind")
				field.CRDPath, _, _ = a.Lookup(1, "crd")
			}
			if re, _ := pattern(f); field.Example == "" {
				if w, ok := patternWords[re]; ok {
					field.Example = w[1]
				}
			}
			if i := slices.IndexFunc(out, func(o Field) bool { return o.Path == p }); i >= 0 {
				// A field declared twice (the profile's defaults beside
				// its type): one row, the later facts filling in.
				if out[i].Default == "" {
					out[i].Default = field.Default
				}
				if out[i].Doc == "" {
					out[i].Doc = field.Doc
				}
				continue
			}
			out = append(out, field)
			if e := cueshape.Elem(f); e.Exists() {
				walk(e, p+"[]", own, depth+1)
				continue
			}
			walk(f, p, own, depth+1)
			if e := cueshape.Pattern(f); e.Exists() {
				walk(e, p+".*", own, depth+1)
			}
		}
	}
	walk(s.LookupPath(cue.ParsePath("#Profile")), "", "", 0)
	return out, nil
}

// sameValue reports whether a default is the whole field (a concrete
// value with nothing else to choose).
func sameValue(def, v cue.Value) bool {
	op, _ := v.Expr()
	return op != cue.OrOp && v.IsConcrete() && def.Equals(v)
}

// typeWords says what a field takes.
func typeWords(v cue.Value) string {
	if vals := enum(v); len(vals) > 0 {
		return "one of " + strings.Join(vals, ", ")
	}
	if e := cueshape.Pattern(v); e.Exists() && v.IncompleteKind() == cue.StructKind {
		if cueshape.HasFields(v) {
			return "a struct, and any other field of " + strings.TrimPrefix(typeWords(e), "a ")
		}
		return "a map of names to " + elementWords(e)
	}
	if e := cueshape.Elem(v); e.Exists() {
		return "a list of " + elementWords(e)
	}
	if p, also := pattern(v); p != "" {
		words := fmt.Sprintf("a string matching `%s`", p)
		if w, ok := patternWords[p]; ok {
			words = w[0]
		}
		for _, a := range also {
			words += " or " + strconv.Quote(a)
		}
		return words
	}
	if v.IncompleteKind() == cue.StructKind {
		return "a struct"
	}
	return kindWords(v.IncompleteKind())
}

// plural names the element kinds of a list.
var plural = map[string]string{"a struct": "structs", "a string": "strings", "a whole number": "whole numbers", "a number": "numbers", "true or false": "booleans", "a boolean": "booleans"}

// elementWords says what a list's element is.
func elementWords(e cue.Value) string {
	if vals := enum(e); len(vals) > 0 {
		return strings.Join(vals, ", ")
	}
	w := typeWords(e)
	if p, ok := plural[w]; ok {
		return p
	}
	// A choice of kinds: each in the plural (strings or whole numbers).
	parts := strings.Split(strings.ReplaceAll(w, "true or false", "a boolean"), " or ")
	for i, p := range parts {
		q, ok := plural[p]
		if !ok {
			return strings.TrimPrefix(w, "a ")
		}
		parts[i] = q
	}
	last := len(parts) - 1
	return strings.Join(append([]string{strings.Join(parts[:last], ", ")}, parts[last]), " or ")
}

// cueText is a concrete value as CUE writes it, on one line.
func cueText(v cue.Value) string {
	b, err := format.Node(v.Syntax(cue.Concrete(true)), format.Simplify())
	if err != nil {
		return fmt.Sprint(v)
	}
	return strings.Join(strings.Fields(string(b)), " ")
}
