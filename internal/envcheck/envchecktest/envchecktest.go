// Package envchecktest loads a profiles folder for tests, as vet does:
// each environment evaluated, resolved and held to the rule catalog, and
// nothing rendered. The tests of the packages that read bundles (doctor,
// the plans) load their profiles through it rather than through the
// action layer, which would link kustomize, Helm's and every command's
// dependencies into each of their test binaries.
package envchecktest

import (
	"os"
	"testing"

	"github.com/karpgen/karpgen/internal/diag"
	"github.com/karpgen/karpgen/internal/envcheck"
	"github.com/karpgen/karpgen/internal/load"
	"github.com/karpgen/karpgen/internal/model"
)

// Envs loads every environment of the profiles folder dir. A folder that
// does not load, or whose findings hold an error, fails the test with
// them.
func Envs(t testing.TB, dir string) []*model.Env {
	t.Helper()
	c := envcheck.New(os.DirFS(dir), dir, "")
	res, err := load.Load(load.Folder{FS: os.DirFS(dir), Path: dir, Sized: c.Size}, nil, c.Check)
	if err != nil {
		t.Fatalf("loading %s: %v", dir, err)
	}
	if diag.HasErrors(res.Findings) {
		t.Fatalf("loading %s: %v", dir, diag.Sort(res.Findings))
	}
	envs := make([]*model.Env, 0, len(res.Envs))
	for _, src := range res.Envs {
		envs = append(envs, c.Resolved(src.Name))
	}
	if len(envs) == 0 {
		t.Fatalf("loading %s: no environment", dir)
	}
	return envs
}
