package output

import (
	"fmt"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/karpgen/karpgen/internal/model"
)

// Plans is the folder of an environment's folder where `karpgen upgrade
// --write` puts its plans, one folder per target version. A plan is
// generated output like the rest of the bundle: render writes it again
// from the profile and --check compares it, so a hand edit (a transition
// policy widened to "Action": "*", say) is a difference.
const Plans = "upgrade"

// Replanner makes the plan recorded in a plan folder again, from the
// environment's current profile, given the files the folder holds now
// (by slash path inside it): the bundle of out/<env>/upgrade/<to>/.
type Replanner func(env string, files map[string][]byte) (*model.Bundle, error)

// PlanError names a plan folder that cannot be made again.
type PlanError struct {
	Dir string
	Err error
}

func (e *PlanError) Error() string {
	return fmt.Sprintf("%s: %v; delete the folder, or write the plan again with karpgen upgrade --write", filepath.ToSlash(e.Dir), e.Err)
}

// planFiles returns the files of every plan under outDir/<env>/upgrade/,
// made again by replan, as slash paths relative to the environment's
// folder (each plan with its manifest). have are the files the folder
// holds now.
func planFiles(outDir, env string, have map[string][]byte, replan Replanner) (map[string][]byte, error) {
	dir := filepath.Join(outDir, env, Plans)
	// The files of each plan folder, by path inside it.
	records := map[string]map[string][]byte{}
	for p, data := range have {
		rest, ok := strings.CutPrefix(p, Plans+"/")
		if !ok {
			continue
		}
		to, inner, _ := strings.Cut(rest, "/")
		if records[to] == nil {
			records[to] = map[string][]byte{}
		}
		if inner != "" {
			records[to][inner] = data
		}
	}
	files := map[string][]byte{}
	for _, to := range slices.Sorted(maps.Keys(records)) {
		folder := filepath.Join(dir, to)
		record := records[to]
		if replan == nil {
			return nil, &PlanError{Dir: folder, Err: fmt.Errorf("plans are not made again here")}
		}
		b, err := replan(env, record)
		if err != nil {
			return nil, &PlanError{Dir: folder, Err: err}
		}
		if b.Env != path.Join(env, Plans, to) {
			return nil, &PlanError{Dir: folder, Err: fmt.Errorf("its record names a plan to another version")}
		}
		for p, data := range WithManifest(b) {
			files[path.Join(Plans, to, p)] = data
		}
	}
	return files, nil
}

// exists reports an entry at p (not following a link).
func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}
