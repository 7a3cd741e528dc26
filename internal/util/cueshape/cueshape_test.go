package cueshape

import (
	"testing"

	"cuelang.org/go/cue"
	"cuelang.org/go/cue/cuecontext"
)

const schema = `
#Role: {existing: *false | bool}
#Budget: {nodes: string}
s: {
	roles: [=~"^[a-z-]{1,64}$"]: #Role
	labels: [string]: string
	closed: #Role
	open: {...}
	plain: {a: int}
	kubelet: {maxPods?: int, [string]: _}
	arch: *["amd64"] | [...("amd64" | "arm64")]
	budgets: *[{nodes: "10%"}] | [...#Budget]
	terms: (*[{tags: "x"}] | _) & [...{tags?: string, id?: string}]
	fixed: [1, 2]
}
`

// TestShapes: the pattern of names and of any string, _ for a struct
// that takes any field, nothing for a closed or merely open one (CUE's
// structs outside definitions), and the element of
// a list past its default, through a field declared twice, and none of a
// closed list.
func TestShapes(t *testing.T) {
	s := cuecontext.New().CompileString(schema).LookupPath(cue.ParsePath("s"))
	if err := s.Err(); err != nil {
		t.Fatal(err)
	}
	field := func(name string) cue.Value { return s.LookupPath(cue.ParsePath(name)) }
	if p := Pattern(field("roles")); !p.LookupPath(cue.ParsePath("existing")).Exists() {
		t.Errorf("the pattern of names of roles is %v, want #Role", p)
	}
	if p := Pattern(field("labels")); p.IncompleteKind() != cue.StringKind {
		t.Errorf("the pattern of labels is %v, want string", p)
	}
	for _, name := range []string{"open", "kubelet"} {
		if p := Pattern(field(name)); p.IncompleteKind() != cue.TopKind {
			t.Errorf("the pattern of %s is %v, want _", name, p)
		}
	}
	for _, name := range []string{"closed", "plain", "arch"} {
		if p := Pattern(field(name)); p.Exists() {
			t.Errorf("%s has a pattern %v, want none", name, p)
		}
	}
	if e := Elem(field("arch")); e.IncompleteKind() != cue.StringKind {
		t.Errorf("the element of arch is %v, want a string", e)
	}
	if e := Elem(field("budgets")); !e.LookupPath(cue.ParsePath("nodes")).Exists() || e.LookupPath(cue.ParsePath("nodes")).IsConcrete() {
		t.Errorf("the element of budgets is %v, want #Budget", e)
	}
	if e := Elem(field("terms")); !e.LookupPath(cue.MakePath(cue.Str("id").Optional())).Exists() {
		t.Errorf("the element of terms is %v, want the open list's", e)
	}
	if e := ListElem(field("fixed")); e.Exists() {
		t.Errorf("a closed list has an element %v", e)
	}
}
