package doctor_test

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/karpgen/karpgen/internal/action"
	"github.com/karpgen/karpgen/internal/doctor"
	"github.com/karpgen/karpgen/internal/util/escape"
)

// TestCaptureHoldsWhatChecksRead: every file a check reads (found by
// running it on empty files) is one the capture script writes, for the
// profiles of the tests and of the repository, and a check that applies
// reads at least one.
func TestCaptureHoldsWhatChecksRead(t *testing.T) {
	n := 0
	for _, dir := range []string{filepath.Join("testdata", "profiles"), filepath.Join("..", "..", "profiles")} {
		res, err := action.Check(action.Options{Dir: dir})
		if err != nil || len(res.Envs) == 0 {
			t.Fatalf("%s: %v %v", dir, err, res.Findings)
		}
		for _, e := range res.Envs {
			captured := doctor.CapturedFiles(e)
			for _, ch := range doctor.Catalog() {
				files := ch.Files(e)
				for _, f := range files {
					if !slices.Contains(captured, escape.Shell(f)) {
						t.Errorf("%s %s: %s reads %s, which the capture does not write", dir, e.Name, ch.ID, f)
					}
				}
				n += len(files)
			}
		}
	}
	if n < 40 {
		t.Errorf("only %d files read", n)
	}
}
