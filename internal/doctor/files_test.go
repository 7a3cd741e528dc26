package doctor_test

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/karpgen/karpgen/internal/doctor"
	"github.com/karpgen/karpgen/internal/doctor/live"
	"github.com/karpgen/karpgen/internal/envcheck/envchecktest"
	"github.com/karpgen/karpgen/internal/util/escape"
)

// TestCaptureHoldsWhatChecksRead: every file a check reads (found by
// running it on empty files) is one the capture script writes, for the
// profiles of the tests and of the repository, and a check that applies
// reads at least one.
func TestCaptureHoldsWhatChecksRead(t *testing.T) {
	n := 0
	for _, dir := range []string{filepath.Join("testdata", "profiles"), filepath.Join("..", "..", "profiles")} {
		for _, e := range envchecktest.Envs(t, dir) {
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

// TestPartsAreCaptured: every file a part of the capture the plans read
// is named by is one the script writes (per node group and association,
// a file its loops write), so a plan never assumes a part for want of a
// file no capture has.
func TestPartsAreCaptured(t *testing.T) {
	e := envchecktest.Envs(t, filepath.Join("testdata", "profiles"))[0]
	captured, script := doctor.CapturedFiles(e), doctor.Script(e)
	for part, info := range live.Parts {
		if len(info.Files) == 0 || info.Assumed == "" {
			t.Errorf("part %s names no file or no assumption", part)
		}
		if part == live.PartApplication && e.Application == nil {
			continue // captured only for an environment Argo CD delivers
		}
		for _, f := range info.Files {
			if prefix, ok := strings.CutSuffix(f, "*.json"); ok {
				if !strings.Contains(script, `run "`+prefix+`$`) {
					t.Errorf("part %s: the script writes no %s file", part, f)
				}
				continue
			}
			if !slices.Contains(captured, escape.Shell(f)) {
				t.Errorf("part %s: the script does not write %s", part, f)
			}
		}
	}
}
