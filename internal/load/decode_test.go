package load

import (
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/fstest"

	"cuelang.org/go/cue"
	"github.com/rogpeppe/go-internal/txtar"

	"github.com/karpgen/karpgen/internal/load/internal/decode"
	"github.com/karpgen/karpgen/internal/profile"
	"github.com/karpgen/karpgen/internal/templates"
)

// decodePackages are the profile packages of the repository: its own
// profiles and test data, every template, and the profiles of every
// command scenario (which cover every field the schema has), each as
// files by name.
var decodePackages = sync.OnceValue(func() map[string]map[string][]byte {
	root := filepath.Join("..", "..")
	pkgs := map[string]map[string][]byte{}
	for _, dir := range []string{"profiles", "internal/doctor/testdata/profiles", "internal/plan/upgrade/testdata/profiles"} {
		files, _ := filepath.Glob(filepath.Join(root, dir, "*.cue"))
		pkgs[dir] = map[string][]byte{}
		for _, f := range files {
			pkgs[dir][filepath.Base(f)] = must(os.ReadFile(f))
		}
	}
	for _, name := range templates.Names() {
		files, err := templates.Render(name, templates.Params{Name: "ws", Region: "eu-west-1", Account: "123456789012", KarpenterVersion: "1.8.1", KubernetesVersion: "1.33"})
		if err != nil {
			panic(err)
		}
		pkgs["template "+name] = files
	}
	base := must(os.ReadFile(filepath.Join(root, "cmd/karpgen/testdata/common/base.cue")))
	scripts, _ := filepath.Glob(filepath.Join(root, "cmd/karpgen/testdata/script/*.txtar"))
	for _, s := range scripts {
		a, err := txtar.ParseFile(s)
		if err != nil {
			panic(err)
		}
		files := map[string][]byte{"base.cue": base}
		for _, f := range a.Files {
			if name, ok := strings.CutPrefix(f.Name, "profiles/"); ok && strings.HasSuffix(name, ".cue") && !strings.Contains(name, "/") {
				files[name] = f.Data
			}
		}
		pkgs[filepath.Base(s)] = files
	}
	return pkgs
})

func must(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}

// validEnv is an environment of a package of the repository that
// validates: its value as written and unified with the schema.
type validEnv struct {
	pkg, name  string
	raw, value cue.Value
}

// validEnvs are the environments of every package in the repository that
// validates, loaded once for the tests that read them all; under -short,
// those of the repository's own packages and of every third scenario.
var validEnvs = sync.OnceValue(func() []validEnv {
	var out []validEnv
	for i, pkg := range slices.Sorted(maps.Keys(decodePackages())) {
		if testing.Short() && strings.HasSuffix(pkg, ".txtar") && i%3 != 0 {
			continue
		}
		files := decodePackages()[pkg]
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
			u := w.profile.Unify(w.raws[name])
			if u.Validate() != nil {
				continue
			}
			out = append(out, validEnv{pkg, name, w.raws[name], u})
		}
	}
	return out
})

// TestDecodeAsCUEDoes holds decode to cue.Value.Decode on every
// environment of every package in the repository that validates.
func TestDecodeAsCUEDoes(t *testing.T) {
	envs := validEnvs()
	for _, e := range envs {
		var want, got profile.Profile
		wantErr := e.value.Decode(&want)
		gotErr := decode.Decode(e.value, &got)
		switch {
		case wantErr != nil && gotErr == nil:
			t.Errorf("%s %s: decoded what CUE refuses (%v)", e.pkg, e.name, wantErr)
		case wantErr == nil && gotErr != nil:
			t.Errorf("%s %s: %v, where CUE decodes", e.pkg, e.name, gotErr)
		case wantErr == nil && !reflect.DeepEqual(got, want):
			t.Errorf("%s %s: decoded\n%+v\nCUE decodes\n%+v", e.pkg, e.name, got, want)
		}
	}
	if len(envs) < 100 && !testing.Short() {
		t.Errorf("only %d environments compared", len(envs))
	}
	t.Logf("%d environments decoded alike", len(envs))
}
