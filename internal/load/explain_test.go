package load

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	"cuelang.org/go/cue"
	"cuelang.org/go/cue/cuecontext"

	"github.com/karpgen/karpgen/internal/util/cueshape"
	"github.com/karpgen/karpgen/schema"
)

// schemaFields walks #Profile: each field's shape ("nodePools.*.zones"),
// its value, and whether it is required (not optional, no default, a
// scalar).
func schemaFields(t *testing.T) (patterns map[string]string, required []string) {
	ctx := cuecontext.New()
	s := ctx.CompileBytes(schema.Source(), cue.Filename(schema.Filename))
	patterns = map[string]string{}
	var walk func(v cue.Value, shape []string, depth int)
	walk = func(v cue.Value, shape []string, depth int) {
		if depth > 12 {
			return
		}
		if p, _ := pattern(v); p != "" {
			patterns[strings.Join(shape, ".")] = p
		}
		if e := cueshape.Pattern(v); e.Exists() {
			walk(e, append(slices.Clone(shape), "*"), depth+1)
		}
		if e := cueshape.ListElem(v); e.Exists() {
			walk(e, append(slices.Clone(shape), "*"), depth+1)
		}
		iter, err := v.Fields(cue.Optional(true))
		if err != nil {
			return
		}
		for iter.Next() {
			f := iter.Value()
			name := iter.Selector().Unquoted()
			sh := append(slices.Clone(shape), name)
			_, hasDefault := f.Default()
			if !iter.IsOptional() && !hasDefault && f.IncompleteKind()&(cue.StructKind|cue.ListKind) == 0 && !f.IsConcrete() {
				required = append(required, strings.Join(sh, "."))
			}
			walk(f, sh, depth+1)
		}
	}
	walk(s.LookupPath(cue.ParsePath("#Profile")), nil, 0)
	return patterns, required
}

// TestEveryConstraintIsExplained: each pattern of the schema has its
// words and example, each field the schema requires has its example, so
// no schema mistake is reported in CUE's words alone.
func TestEveryConstraintIsExplained(t *testing.T) {
	patterns, required := schemaFields(t)
	if len(patterns) < 6 || len(required) < 6 {
		t.Fatalf("walked %d patterns, %d required fields", len(patterns), len(required))
	}
	for shape, p := range patterns {
		if _, ok := patternWords[p]; !ok {
			t.Errorf("%s: pattern %s has no words in patternWords", shape, p)
		}
	}
	examples := requiredExamples()
	for _, shape := range required {
		if _, ok := examples[shape]; !ok {
			t.Errorf("required field %s has no @example in the schema, on it or on a field around it", shape)
		}
	}
	for shape := range examples {
		if !slices.Contains(required, shape) {
			t.Errorf("requiredExamples has %s, which the schema does not require", shape)
		}
	}
	// Every @example of the schema is some required field's.
	used := map[string]bool{}
	for _, ex := range examples {
		used[ex] = true
	}
	for _, m := range regexp.MustCompile(`@example\(#"(.*?)"#\)`).FindAllStringSubmatch(string(schema.Source()), -1) {
		if !used[m[1]] {
			t.Errorf("the schema's @example %s is no required field's", m[1])
		}
	}
}
