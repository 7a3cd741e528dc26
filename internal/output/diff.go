package output

import (
	"fmt"
	"io"
	"maps"
	"path"
	"slices"
	"strings"

	"github.com/karpgen/karpgen/internal/model"
	"github.com/karpgen/karpgen/internal/util/textdiff"
)

// DiffBundle writes a unified diff, file by file, from what is under
// outDir/<env>/ to what the bundle holds, and reports whether anything
// differs. outDir is printed as given.
// The upgrade plans in the folder are made again by replan and compared
// too; a plan that cannot be made again is an error.
func DiffBundle(w io.Writer, outDir string, b *model.Bundle, replan Replanner) (bool, error) {
	dir := path.Join(outDir, b.Env)
	have, err := ReadDir(dir)
	if err != nil {
		return false, err
	}
	want := WithManifest(b)
	plans, err := planFiles(outDir, b.Env, have, replan)
	if err != nil {
		return false, err
	}
	maps.Copy(want, plans)
	return diffFiles(w, dir, have, want)
}

// DiffGone writes the diff that removes the folder of an environment the
// profiles no longer have.
func DiffGone(w io.Writer, outDir, env string) error {
	dir := path.Join(outDir, env)
	have, err := ReadDir(dir)
	if err != nil {
		return err
	}
	_, err = diffFiles(w, dir, have, nil)
	return err
}

// DiffFleet diffs the files of outDir itself.
func DiffFleet(w io.Writer, outDir string, fleet map[string][]byte) (bool, error) {
	have, err := readFleet(outDir)
	if err != nil {
		return false, err
	}
	return diffFiles(w, outDir, have, fleet)
}

// diffFiles diffs two sets of files under dir, in path order.
func diffFiles(w io.Writer, dir string, have, want map[string][]byte) (bool, error) {
	names := map[string]bool{}
	for p := range have {
		names[p] = true
	}
	for p := range want {
		names[p] = true
	}
	differs := false
	for _, p := range slices.Sorted(maps.Keys(names)) {
		old, inOld := have[p]
		cur, inNew := want[p]
		if inOld && inNew && string(old) == string(cur) {
			continue
		}
		differs = true
		shown := strings.TrimPrefix(path.Join(dir, p), "/")
		text, err := textdiff.Unified(shown, old, cur, inOld, inNew, 3)
		if err != nil {
			return differs, err
		}
		fmt.Fprintf(w, "diff %s\n%s", path.Join(dir, p), text)
	}
	return differs, nil
}
