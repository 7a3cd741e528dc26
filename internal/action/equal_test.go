package action_test

import (
	"bytes"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/karpgen/karpgen/internal/action"
	"github.com/karpgen/karpgen/internal/bench/fleet"
)

// collect renders the environments asked for (all when none) and returns
// their bundles, or nil when the profiles are refused. One environment is
// rendered beside its rules, as render and build do.
func collect(t *testing.T, dir string, envs ...string) *action.Collect {
	t.Helper()
	res, err := action.Check(action.Options{Dir: dir, Envs: envs, RenderAhead: len(envs) == 1})
	if err != nil || len(res.Envs) == 0 {
		return nil
	}
	var c action.Collect
	if err := res.Render(&c); err != nil {
		t.Fatalf("%s: render %v: %v", dir, envs, err)
	}
	return &c
}

// sameBundles asserts that each environment renders alone (as build and
// `render ENV` evaluate it, beside its rules) exactly what it renders with
// the whole package (as render and render --check do, after the rules).
func sameBundles(t *testing.T, dir string) int {
	t.Helper()
	all := collect(t, dir)
	if all == nil {
		return 0
	}
	for env, want := range all.Bundles {
		one := collect(t, dir, env)
		if one == nil {
			t.Errorf("%s: %s renders with the whole package but not alone", dir, env)
			continue
		}
		got := one.Bundles[env]
		for _, p := range slices.Sorted(maps.Keys(want.Files)) {
			if !bytes.Equal(got.Files[p], want.Files[p]) {
				t.Errorf("%s: %s/%s differs between the whole package and the environment alone", dir, env, p)
			}
		}
		if len(got.Files) != len(want.Files) {
			t.Errorf("%s: %s has %d files alone, %d with the whole package", dir, env, len(got.Files), len(want.Files))
		}
	}
	return len(all.Bundles)
}

// TestBuildEqualsRender: every profile package of the scenarios, the
// repo's own profiles and a package that shadows hidden fields render
// the same environment alone and with the whole package.
func TestBuildEqualsRender(t *testing.T) {
	base, err := os.ReadFile(filepath.Join("..", "..", "cmd", "karpgen", "testdata", "common", "base.cue"))
	if err != nil {
		t.Fatal(err)
	}
	scripts, _ := filepath.Glob(filepath.Join("..", "..", "cmd", "karpgen", "testdata", "script", "*.txtar"))
	if len(scripts) < 50 {
		t.Fatalf("found %d scenarios", len(scripts))
	}
	envs := 0
	for i, script := range scripts {
		// Under -short, every third scenario, as load's tests read them.
		if testing.Short() && i%3 != 0 {
			continue
		}
		a, err := txtar.ParseFile(script)
		if err != nil {
			t.Fatal(err)
		}
		dir := filepath.Join(t.TempDir(), "profiles")
		os.MkdirAll(dir, 0o755)
		os.WriteFile(filepath.Join(dir, "base.cue"), base, 0o644)
		for _, f := range a.Files {
			name, ok := strings.CutPrefix(f.Name, "profiles/")
			if !ok || strings.Contains(name, "/") || !(strings.HasSuffix(name, ".cue") || strings.HasSuffix(name, ".jsonnet")) {
				continue
			}
			os.WriteFile(filepath.Join(dir, name), f.Data, 0o644)
		}
		envs += sameBundles(t, dir)
	}
	envs += sameBundles(t, filepath.Join("..", "..", "profiles"))
	if envs < 30 {
		t.Errorf("only %d environments rendered both ways", envs)
	}

	// The attack: a hidden field declared inside environments and at the
	// top level. Dropping the other environments must not drop it.
	dir := filepath.Join(t.TempDir(), "profiles")
	os.MkdirAll(dir, 0o755)
	os.WriteFile(filepath.Join(dir, "base.cue"), base, 0o644)
	os.WriteFile(filepath.Join(dir, "env.cue"), []byte(`package profiles

_hop: 2
_tokens: "optional"
environments: {
	_hop:    1
	_tokens: "required"
	dev: _base & {nodeClasses: default: metadataOptions: {httpPutResponseHopLimit: _hop, httpTokens: _tokens}}
	prod: _base & {cluster: name: "ws-prod"}
}
`), 0o644)
	if n := sameBundles(t, dir); n != 2 {
		t.Fatalf("the shadowing package rendered %d environments", n)
	}
	one := collect(t, dir, "dev")
	if got := string(one.Bundles["dev"].Files["ec2nodeclasses.yaml"]); !strings.Contains(got, "httpPutResponseHopLimit: 1\n") || !strings.Contains(got, "httpTokens: required\n") {
		t.Errorf("dev alone took the top-level hidden fields:\n%s", got)
	}
}

// TestBuildEqualsRenderFleet: the same over a package of 1,000
// environments sharing one base (a sample of them alone).
func TestBuildEqualsRenderFleet(t *testing.T) {
	if testing.Short() {
		t.Skip("renders 1,000 environments")
	}
	dir := filepath.Join(t.TempDir(), "profiles")
	if err := fleet.Write(dir, 1000); err != nil {
		t.Fatal(err)
	}
	all := collect(t, dir)
	if all == nil || len(all.Bundles) != 1000 {
		t.Fatalf("fleet: %v", all)
	}
	names := slices.Sorted(maps.Keys(all.Bundles))
	for i := 0; i < len(names); i += 97 {
		env := names[i]
		one := collect(t, dir, env)
		for p, want := range all.Bundles[env].Files {
			if !bytes.Equal(one.Bundles[env].Files[p], want) {
				t.Errorf("%s/%s differs alone", env, p)
			}
		}
	}
}
