package form_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"cuelang.org/go/cue"
	"cuelang.org/go/cue/cuecontext"
	"cuelang.org/go/cue/load"

	"github.com/karpgen/karpgen/internal/profile/form"
)

// TestProfilesAsWritten: every environment of the repository's own
// profiles and of the design's example, as its authors wrote it (before
// the schema's defaults), reads into Profile with no field the types lack
// and prints back to the same value: the types cover what users write.
func TestProfilesAsWritten(t *testing.T) {
	for _, dir := range []string{"../../../profiles", "../../../cmd/karpgen/testdata/design_example/profiles"} {
		insts := load.Instances([]string{"."}, &load.Config{Dir: dir})
		v := cuecontext.New().BuildInstance(insts[0])
		if err := v.Err(); err != nil {
			t.Fatalf("%s: %v", dir, err)
		}
		iter, err := v.LookupPath(cue.ParsePath("environments")).Fields()
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for iter.Next() {
			env := iter.Selector().Unquoted()
			want := plain(t, iter.Value())
			var p form.Profile
			if err := form.Decode(want, &p); err != nil {
				t.Fatalf("%s: environment %s: %v", dir, env, err)
			}
			src, err := form.File(nil, env, &p)
			if err != nil {
				t.Fatal(err)
			}
			back := cuecontext.New().CompileBytes(src)
			if got := plain(t, back.LookupPath(cue.MakePath(cue.Str("environments"), cue.Str(env)))); !reflect.DeepEqual(got, want) {
				t.Errorf("%s: environment %s does not print back to itself:\n%s", dir, env, src)
			}
			n++
		}
		if n == 0 {
			t.Fatalf("%s has no environment", dir)
		}
	}
}

// TestFileRoundTrips: what File prints is CUE that evaluates to exactly
// the profile it was given, whatever the names and strings hold (hidden
// and definition names, quotes, line breaks, other scripts), with the
// header's comments first and the profile's fields in the schema's order.
func TestFileRoundTrips(t *testing.T) {
	p := &form.Profile{
		Cluster:   &form.Cluster{Name: "c\"q\\\n\t", Region: "eu-west-1", AccountID: "111122223333"},
		Karpenter: &form.Karpenter{Version: "1.2.3", InterruptionQueue: form.Ptr(false), Settings: map[string]any{"batchMaxDuration": "10s", "reservedENIs": 1, "x": 2.5}},
		NodeClasses: map[string]form.NodeClass{"a.b[1]": {
			UserData: "#!/bin/bash\necho \"${X}\" \\(y)\n",
			Tags:     map[string]string{"_hidden": "x", "#def": "y", "let": "z", "名前": "値", "": "empty key"},
		}},
		NodePools: map[string]form.NodePool{"app": {
			Weight:     form.Ptr(0),
			Taints:     []form.Taint{{Key: "k", Effect: "NoSchedule"}, {Key: "j", Value: "v", Effect: "NoExecute"}},
			Disruption: &form.NodePoolDisruption{Budgets: []form.Budget{}},
			Limits:     map[string]any{"cpu": 100, "memory": "400Gi"},
		}},
	}
	src, err := form.File([]string{"// header", "//   - a note"}, "my env", p)
	if err != nil {
		t.Fatal(err)
	}
	text := string(src)
	if !strings.HasPrefix(text, "// header\n//   - a note\npackage profiles\n\nenvironments: \"my env\": {\n\tcluster: {\n\t\tname: ") {
		t.Errorf("layout:\n%s", src)
	}
	if !strings.Contains(text, "\t\ttaints: [\n\t\t\t{\n") {
		t.Errorf("a list of structs is not one element a line:\n%s", src)
	}
	v := cuecontext.New().CompileBytes(src)
	if err := v.Err(); err != nil {
		t.Fatalf("%v\n%s", err, src)
	}
	got := plain(t, v.LookupPath(cue.MakePath(cue.Str("environments"), cue.Str("my env"))))
	want := map[string]any{
		"cluster":   map[string]any{"name": "c\"q\\\n\t", "region": "eu-west-1", "accountID": "111122223333"},
		"karpenter": map[string]any{"version": "1.2.3", "interruptionQueue": false, "settings": map[string]any{"batchMaxDuration": "10s", "reservedENIs": 1.0, "x": 2.5}},
		"nodeClasses": map[string]any{"a.b[1]": map[string]any{
			"userData": "#!/bin/bash\necho \"${X}\" \\(y)\n",
			"tags":     map[string]any{"_hidden": "x", "#def": "y", "let": "z", "名前": "値", "": "empty key"},
		}},
		"nodePools": map[string]any{"app": map[string]any{
			"weight":     0.0,
			"taints":     []any{map[string]any{"key": "k", "effect": "NoSchedule"}, map[string]any{"key": "j", "value": "v", "effect": "NoExecute"}},
			"disruption": map[string]any{"budgets": []any{}},
			"limits":     map[string]any{"cpu": 100.0, "memory": "400Gi"},
		}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("round trip:\n got %#v\nwant %#v\n%s", got, want, src)
	}
	// What is set to a zero value (false, 0, an empty list) is written;
	// what is left out is not.
	for _, s := range []string{"interruptionQueue: false", "weight: 0", "budgets: []"} {
		if !strings.Contains(text, s) {
			t.Errorf("%q is not written:\n%s", s, src)
		}
	}
	for _, s := range []string{"namespace", "nodeGroups", "null"} {
		if strings.Contains(text, s) {
			t.Errorf("%q, which the profile leaves out, is written:\n%s", s, src)
		}
	}
}

// TestDecodeNamesUnknownFields: a field the schema does not have is an
// error that names it, never dropped silently; numbers stay whole.
func TestDecodeNamesUnknownFields(t *testing.T) {
	var r form.ControllerResources
	err := form.Decode(map[string]any{"requests": map[string]any{"cpu": 1, "ephemeral-storage": "1Gi"}}, &r)
	if err == nil || !strings.Contains(err.Error(), `unknown field "ephemeral-storage"`) {
		t.Errorf("err = %v, want it to name ephemeral-storage", err)
	}
	if err := form.Decode(map[string]any{"requests": map[string]any{"cpu": 1, "memory": "1Gi"}}, &r); err != nil {
		t.Fatal(err)
	}
	if r.Requests.CPU != 1 {
		t.Errorf("cpu = %#v, want the int 1", r.Requests.CPU)
	}
	var nc form.NodeClass
	nc.IPPrefixCount = form.Ptr(0)
	if !form.Has(&nc, "ipPrefixCount") || form.Has(&nc, "cpuOptions") || form.Has(&nc, "noSuchField") {
		t.Error("Has: ipPrefixCount 0 is set, cpuOptions and a field the class does not have are not")
	}
}

// plain is a value as JSON decodes it.
func plain(t *testing.T, v cue.Value) any {
	t.Helper()
	data, err := v.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	var out any
	if err := json.Unmarshal(data, &out); err != nil {
		t.Fatal(err)
	}
	return out
}
