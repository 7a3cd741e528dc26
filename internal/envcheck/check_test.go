package envcheck_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/karpgen/karpgen/internal/envcheck"
	"github.com/karpgen/karpgen/internal/load"
	"github.com/karpgen/karpgen/internal/util/progress"
)

// TestChecker: the loader hands over each environment; the checker
// keeps its model, tells how many are checked of how many, and returns
// the rule catalog's findings with the profile's own positions.
func TestChecker(t *testing.T) {
	dir := filepath.Join("..", "doctor", "testdata", "profiles")
	c := envcheck.New(os.DirFS(dir), dir, "")
	c.Meter = new(progress.Meter)
	res, err := load.Load(load.Folder{FS: os.DirFS(dir), Path: dir, Sized: c.Size}, nil, c.Check)
	if err != nil || len(res.Envs) != 1 {
		t.Fatalf("load: %v, %d environments", err, len(res.Envs))
	}
	if phase, done, total := c.Meter.Read(); phase != progress.Evaluating || done != 1 || total != 1 {
		t.Errorf("the meter reads %v %d of %d; want evaluating 1 of 1", phase, done, total)
	}
	e := c.Resolved("prod")
	if e == nil || e.Name != "prod" || e.Names.NodeRole == "" {
		t.Fatalf("resolved %+v", e)
	}
	if c.Resolved("other") != nil {
		t.Error("a model for an environment never checked")
	}
	for _, f := range res.Findings {
		if f.Pos.IsValid() && filepath.Base(f.Pos.File) != "env.cue" {
			t.Errorf("finding %v is not at the profile", f)
		}
	}
}
