package importer

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"cuelang.org/go/cue"
	"cuelang.org/go/cue/cuecontext"
)

// TestSyntaxRoundTrips: what the writer prints is CUE that evaluates to
// exactly the value it was given, whatever the keys and strings hold
// (hidden and definition names, quotes, line breaks, other scripts).
func TestSyntaxRoundTrips(t *testing.T) {
	env := map[string]any{
		"_hidden": "x", "#def": "y", "a b": 1, "karpenter.sh/discovery": "c\"q\\\n\t",
		"let": true, "null": nil, "list": []any{"a", 2, 2.5, false},
		"structs": []any{map[string]any{"k": "v"}, map[string]any{"if": "x"}},
		"tags":    map[string]string{"名前": "値", "": "empty key"},
		"ints":    []int{1, 2}, "strs": []string{"x"},
	}
	src, err := profileFile([]string{"// header", "//   - a note"}, "dev", env)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(src), "// header\n//   - a note\npackage profiles\n\nenvironments: dev: {\n") {
		t.Errorf("layout:\n%s", src)
	}
	v := cuecontext.New().CompileBytes(src)
	if err := v.Err(); err != nil {
		t.Fatalf("%v\n%s", err, src)
	}
	data, err := v.LookupPath(cue.ParsePath("environments")).MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]map[string]any
	if err := json.Unmarshal(data, &got); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"_hidden": "x", "#def": "y", "a b": 1.0, "karpenter.sh/discovery": "c\"q\\\n\t",
		"let": true, "null": nil, "list": []any{"a", 2.0, 2.5, false},
		"structs": []any{map[string]any{"k": "v"}, map[string]any{"if": "x"}},
		"tags":    map[string]any{"名前": "値", "": "empty key"},
		"ints":    []any{1.0, 2.0}, "strs": []any{"x"},
	}
	if !reflect.DeepEqual(got["dev"], want) {
		t.Errorf("round trip:\n got %#v\nwant %#v\n%s", got["dev"], want, src)
	}
}
