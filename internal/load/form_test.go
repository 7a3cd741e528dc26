package load

import (
	"encoding/json"
	"reflect"
	"testing"
	"testing/fstest"

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
	envs := 0
	for pkg, files := range decodePackages(t) {
		fsys := fstest.MapFS{}
		var names []string
		for name, data := range files {
			fsys[name] = &fstest.MapFile{Data: data}
			names = append(names, name)
		}
		w, fs, err := newWorker(Folder{FS: fsys, Path: "profiles"}, names, nil, nil)
		if err != nil || len(fs) > 0 {
			continue // a scenario whose package does not load
		}
		for _, name := range sortedNames(w.raws) {
			raw := w.raws[name]
			if w.profile.Unify(raw).Validate() != nil {
				continue
			}
			want, err := plainOf(raw)
			if err != nil {
				t.Errorf("%s %s: %v", pkg, name, err)
				continue
			}
			var p form.Profile
			if err := form.Decode(want, &p); err != nil {
				t.Errorf("%s %s: %v", pkg, name, err)
				continue
			}
			src, err := form.File(nil, name, &p)
			if err != nil {
				t.Fatal(err)
			}
			got, err := plainOf(cuecontext.New().CompileBytes(src).LookupPath(cue.MakePath(cue.Str("environments"), cue.Str(name))))
			if err != nil || !reflect.DeepEqual(got, want) {
				t.Errorf("%s %s does not print back to itself (%v):\n%s", pkg, name, err, src)
			}
			envs++
		}
	}
	if envs < 100 {
		t.Errorf("only %d environments read", envs)
	}
	t.Logf("%d environments read and printed back", envs)
}

func plainOf(v cue.Value) (any, error) {
	data, err := v.MarshalJSON()
	if err != nil {
		return nil, err
	}
	var out any
	return out, json.Unmarshal(data, &out)
}
