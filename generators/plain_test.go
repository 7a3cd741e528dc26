package generators

import (
	"reflect"
	"testing"
)

type plainInner struct {
	A string `json:"a,omitempty"`
}

type plainOuter struct {
	Always   string            `json:"always"`
	Empty    string            `json:"empty,omitempty"`
	Zero     *int              `json:"zero,omitempty"`
	Nil      *int              `json:"nil,omitempty"`
	False    *bool             `json:"false,omitempty"`
	List     []plainInner      `json:"list"`
	NoList   []string          `json:"noList,omitempty"`
	Ints     map[string]int    `json:"ints,omitempty"`
	Strs     map[string]string `json:"strs"`
	Inner    plainInner        `json:"inner,omitempty"`
	Kept     plainInner        `json:"kept"`
	Set      plainInner        `json:"set,omitempty"`
	Any      any               `json:"any,omitempty"`
	Ignored  string            `json:"-"`
	internal string
}

// TestPlain: what is left out and what each type becomes, as
// encoding/json decides omitempty, and a struct of which nothing is
// written left out too.
func TestPlain(t *testing.T) {
	zero, no := 0, false
	got := plain(plainOuter{
		Zero: &zero, False: &no, Ints: map[string]int{"x": 1}, Set: plainInner{"s"},
		Any: obj{}, Ignored: "i", internal: "i",
	})
	want := obj{
		"always": "",
		"zero":   0,
		"false":  false,
		"list":   []any{},
		"ints":   obj{"x": 1},
		"strs":   map[string]string(nil),
		"kept":   obj{},
		"set":    obj{"a": "s"},
		"any":    obj{},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("plain =\n%#v\nwant\n%#v", got, want)
	}
}

// TestPlainRefusesUnnamedFields: a field without a JSON name would be
// written under a name no CRD has.
func TestPlainRefusesUnnamedFields(t *testing.T) {
	defer func() {
		if r := recover(); r != "generators: struct { Name string } has no JSON name" && r != "generators: struct { Name string }.Name has no JSON name" {
			t.Errorf("recovered %v", r)
		}
	}()
	plain(struct{ Name string }{"x"})
}
