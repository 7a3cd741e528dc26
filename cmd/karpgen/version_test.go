package main

import (
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/karpgen/karpgen/internal/action"
	"github.com/karpgen/karpgen/internal/oracle"
)

// TestVersionNamesTheRevision: a karpgen built from a git checkout (as
// make build builds it) says which revision it was built from.
func TestVersionNamesTheRevision(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the karpgen binary")
	}
	root := oracle.Root()
	head, err := exec.Command("git", "-C", root, "rev-parse", "HEAD").Output()
	if err != nil {
		oracle.Missing(t, "not a git checkout (or no git): %v", err)
		return
	}
	bin := filepath.Join(t.TempDir(), "karpgen")
	build := exec.Command("go", "build", "-buildvcs=auto", "-o", bin, "./cmd/karpgen")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out, err := exec.Command(bin, "--version", "-o", "json").Output()
	if err != nil {
		t.Fatal(err)
	}
	var v action.VersionInfo
	if err := json.Unmarshal(out, &v); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if rev := strings.TrimSpace(string(head)); v.Revision != rev || v.Version == "(devel)" || len(v.Releases) != len(v.Minors) {
		t.Errorf("version %+v, want revision %s and a module version", v, rev)
	}
	text, _ := exec.Command(bin, "version").Output()
	if !strings.Contains(string(text), "revision "+strings.TrimSpace(string(head))) {
		t.Errorf("karpgen version says:\n%s", text)
	}
}
