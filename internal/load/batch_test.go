package load

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/karpgen/karpgen/internal/bench/fleet"
	"github.com/karpgen/karpgen/internal/diag"
	"github.com/karpgen/karpgen/internal/load/internal/prune"
)

// batchExtra adds to a fleet what batches must get right: environments
// that are not plain fields (in every batch's package, checked once),
// an environment declared in two files and one that a comprehension
// adds to, and errors in environments of
// different batches, whose positions must be the file's own.
const batchExtra = `package profiles

environments: {
	for r in ["a", "b"] {
		"gen-\(r)": _base & {cluster: name: "gen-\(r)"}
	}
}

environments: {
	for r in ["env-0400"] {
		(r): nodePools: app: weight: 7
	}
}

environments: "env-0005": karpenter: logLevel: 12
environments: "env-0300": nodePools: app: bogus: 1
environments: "env-0600": nodeClasses: default: userData: 5
`

// TestBatchesAsWhole holds a package loaded in batches to the same
// package evaluated whole: the same names, the same environments, the
// same findings at the same positions, and the same positions seen by
// the check that runs on each environment.
func TestBatchesAsWhole(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "profiles")
	if err := fleet.Write(dir, 700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "extra.cue"), []byte(batchExtra), 0o644); err != nil {
		t.Fatal(err)
	}
	check := func(e *Env) []diag.Finding {
		return []diag.Finding{{Rule: "test", Severity: diag.Warning, Env: e.Name, Pos: e.Pos("cluster.name"), Message: e.Profile.Cluster.Name}}
	}
	folder := Folder{FS: os.DirFS(dir), Path: dir}
	if ps := prune.Scan(folder.FS, folder.Path, []string{"base.cue", "environments.cue", "extra.cue"}); ps == nil || len(ps.Envs()) != 700 {
		t.Fatalf("the package does not scan to 700 plain environments")
	}
	whole, err := loadPackage(folder, nil, check, false)
	if err != nil {
		t.Fatal(err)
	}
	batched, err := loadInBatches(folder, []string{"base.cue", "environments.cue", "extra.cue"}, check)
	if err != nil || batched == nil {
		t.Fatalf("not loaded in batches: %v", err)
	}
	if len(whole.Names) != 702 || !reflect.DeepEqual(batched.Names, whole.Names) {
		t.Errorf("names: %d in batches, %d whole", len(batched.Names), len(whole.Names))
	}
	if len(whole.Findings) != 699+3 {
		t.Errorf("%d findings whole, want a check on each of 699 environments and 3 schema errors", len(whole.Findings))
	}
	if len(batched.Findings) != len(whole.Findings) {
		t.Errorf("%d findings in batches, %d whole", len(batched.Findings), len(whole.Findings))
	}
	for i := range min(len(batched.Findings), len(whole.Findings)) {
		if !reflect.DeepEqual(batched.Findings[i], whole.Findings[i]) {
			t.Errorf("finding %d in batches:\n%v\nwhole:\n%v", i, batched.Findings[i], whole.Findings[i])
		}
	}
	if len(batched.Envs) != len(whole.Envs) || len(whole.Envs) != 699 {
		t.Fatalf("%d environments in batches, %d whole", len(batched.Envs), len(whole.Envs))
	}
	for i := range whole.Envs {
		if b, w := batched.Envs[i], whole.Envs[i]; b.Name != w.Name || !reflect.DeepEqual(b.Profile, w.Profile) {
			t.Errorf("%s: the profile differs between the batches and the whole package", w.Name)
		}
	}
}

// TestBatchesFallBackOnPackageErrors: an error of the package itself
// (here a conflict in an environment of the last batch) is reported as
// the whole package reports it.
func TestBatchesFallBackOnPackageErrors(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "profiles")
	if err := fleet.Write(dir, 600); err != nil {
		t.Fatal(err)
	}
	conflict := "package profiles\n\nenvironments: \"env-0550\": cluster: accountID: 12\n"
	if err := os.WriteFile(filepath.Join(dir, "extra.cue"), []byte(conflict), 0o644); err != nil {
		t.Fatal(err)
	}
	folder := Folder{FS: os.DirFS(dir), Path: dir}
	if res, err := loadInBatches(folder, []string{"base.cue", "environments.cue", "extra.cue"}, nil); res != nil || err != nil {
		t.Fatalf("loaded in batches: %v", err)
	}
	whole, err := loadPackage(folder, nil, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	got, err := Load(folder, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(whole.Findings) != 1 || !reflect.DeepEqual(got.Findings, whole.Findings) {
		t.Errorf("findings:\n%v\nwant:\n%v", got.Findings, whole.Findings)
	}
}
