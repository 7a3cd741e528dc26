package action_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/karpgen/karpgen/internal/action"
)

// TestEveryFindingHasAHint: vet over the profiles of every scenario (each
// rule's among them) gives no finding without a hint, and no position in
// the embedded schema.
func TestEveryFindingHasAHint(t *testing.T) {
	base, err := os.ReadFile(filepath.Join("..", "..", "cmd", "karpgen", "testdata", "common", "base.cue"))
	if err != nil {
		t.Fatal(err)
	}
	scripts, _ := filepath.Glob(filepath.Join("..", "..", "cmd", "karpgen", "testdata", "script", "*.txtar"))
	findings := 0
	for i, script := range scripts {
		// Under -short, every third scenario, as load's tests read them.
		if testing.Short() && i%3 != 0 {
			continue
		}
		a, err := txtar.ParseFile(script)
		if err != nil {
			t.Fatal(err)
		}
		// Each set of profiles a scenario copies in turn: its profiles/
		// files, and every *.cue.txt variant in place of env.cue.
		var variants []map[string][]byte
		first := map[string][]byte{"base.cue": base}
		for _, f := range a.Files {
			if name, ok := strings.CutPrefix(f.Name, "profiles/"); ok && !strings.Contains(name, "/") && strings.HasSuffix(name, ".cue") {
				first[name] = f.Data
			}
		}
		if strings.Contains(string(a.Comment), "rm profiles/base.cue") {
			delete(first, "base.cue")
		}
		variants = append(variants, first)
		for _, f := range a.Files {
			if strings.HasSuffix(f.Name, ".cue.txt") && !strings.Contains(f.Name, "/") {
				v := map[string][]byte{}
				for k, d := range first {
					v[k] = d
				}
				v["env.cue"] = f.Data
				variants = append(variants, v)
			}
		}
		for _, files := range variants {
			dir := filepath.Join(t.TempDir(), "profiles")
			os.MkdirAll(dir, 0o755)
			for name, data := range files {
				os.WriteFile(filepath.Join(dir, name), data, 0o644)
			}
			res, err := action.Check(action.Options{Dir: dir})
			if err != nil {
				continue
			}
			for _, f := range res.Findings {
				findings++
				if f.Hint == "" {
					t.Errorf("%s: [%s] %s has no hint", filepath.Base(script), f.Rule, f.Message)
				}
				if strings.Contains(f.Pos.File, "schema/profile.cue") {
					t.Errorf("%s: [%s] %s points into the schema", filepath.Base(script), f.Rule, f.Message)
				}
			}
		}
	}
	if findings < 100 {
		t.Errorf("only %d findings checked", findings)
	}
}
