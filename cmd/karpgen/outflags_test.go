package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/karpgen/karpgen/internal/output"
)

// TestUpgradeWaitsForTheLock: upgrade --write locks out/ as render does,
// waits --lock-wait for another writer, and then names the flag it has.
func TestUpgradeWaitsForTheLock(t *testing.T) {
	dir := t.TempDir()
	common, err := os.ReadFile(filepath.Join("testdata", "common", "base.cue"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "profiles"), 0o755); err != nil {
		t.Fatal(err)
	}
	env := "package profiles\n\nenvironments: dev: _base & {karpenter: {auth: \"irsa\", version: \"1.2.8\"}}\n"
	for name, data := range map[string][]byte{"base.cue": common, "env.cue": []byte(env)} {
		if err := os.WriteFile(filepath.Join(dir, "profiles", name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	held, err := output.NewDisk(filepath.Join(dir, "out"), output.DiskOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	stdout, stderr, code := runIn(t, dir, "upgrade", "dev", "--from", "1.2.5", "--to", "1.2.8", "--write", "--lock-wait", "100ms")
	want := "karpgen: another karpgen (render, or upgrade --write) is writing out; gave up after waiting 100ms (--lock-wait)\n"
	if code != exitFailure || !strings.HasSuffix(stderr, want) {
		t.Errorf("exit %d, stderr:\n%s\nwant exit %d ending in:\n%s\nstdout:\n%s", code, stderr, exitFailure, want, stdout)
	}
}
