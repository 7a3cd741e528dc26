package jsonfields

import (
	"reflect"
	"testing"
)

type tagged struct {
	A       string `json:"a"`
	B       *int   `json:"b,omitempty"`
	C       *int   `json:"c,string,omitempty"`
	Skipped string `json:"-"`
	hidden  string
}

var _ = tagged{hidden: ""}

// TestOf: names, omitempty among other options, "-" and unexported
// fields left out, and an unnamed field refused.
func TestOf(t *testing.T) {
	got, err := Of(reflect.TypeFor[tagged]())
	want := []Field{{0, "a", false}, {1, "b", true}, {2, "c", true}}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("Of = %v, %v; want %v", got, err, want)
	}
	_, err = Of(reflect.TypeFor[struct{ Name string }]())
	if err == nil || err.Error() != "struct { Name string }.Name has no JSON name" {
		t.Errorf("an unnamed field: %v", err)
	}
}
