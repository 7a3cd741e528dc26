package load

import (
	"encoding/json"
	"reflect"
	"testing"

	"cuelang.org/go/cue"
	"cuelang.org/go/cue/cuecontext"

	"github.com/karpgen/karpgen/internal/profile/form"
)

// TestFormHoldsEveryProfile: every environment of every package in the
// repository that validates (the scenarios' profiles cover every field
// the schema has), as its authors wrote it, reads into form.Profile with
// no field the generated types lack, and form.File prints it back to the
// same value: what the importer builds can say whatever a user writes.
func TestFormHoldsEveryProfile(t *testing.T) {
	envs := validEnvs()
	for _, e := range envs {
		want, err := plainOf(e.raw)
		if err != nil {
			t.Errorf("%s %s: %v", e.pkg, e.name, err)
			continue
		}
		var p form.Profile
		if err := form.Decode(want, &p); err != nil {
			t.Errorf("%s %s: %v", e.pkg, e.name, err)
			continue
		}
		src, err := form.File(nil, e.name, &p)
		if err != nil {
			t.Fatal(err)
		}
		got, err := plainOf(cuecontext.New().CompileBytes(src).LookupPath(cue.MakePath(cue.Str("environments"), cue.Str(e.name))))
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("%s %s does not print back to itself (%v):\n%s", e.pkg, e.name, err, src)
		}
	}
	if len(envs) < 100 && !testing.Short() {
		t.Errorf("only %d environments read", len(envs))
	}
	t.Logf("%d environments read and printed back", len(envs))
}

func plainOf(v cue.Value) (any, error) {
	data, err := v.MarshalJSON()
	if err != nil {
		return nil, err
	}
	var out any
	return out, json.Unmarshal(data, &out)
}
