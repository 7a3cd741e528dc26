package main

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/karpgen/karpgen/internal/oracle"
)

// runIn runs karpgen in dir as the command line would, and returns what
// it printed and its exit code.
func runIn(t *testing.T, dir string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	t.Chdir(dir)
	t.Setenv("SOURCE_DATE_EPOCH", "1738368000")
	var out, errOut bytes.Buffer
	code = run(args, &out, &errOut)
	return out.String(), errOut.String(), code
}

// copyTree copies the files below src into dst.
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Join(dst, filepath.Dir(rel)), 0o755); err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// matchTree holds every file below got to the golden tree want
// (oracle.GoldenTree).
func matchTree(t *testing.T, got, want string) {
	t.Helper()
	oracle.GoldenTree(t, got, want)
}

// TestDesignExampleBundle: DESIGN.md's example profile, exactly as
// written (testdata/design_example/profiles), renders into every file of
// the bundle layout, byte for byte the tree in testdata/design_example/out
// (design_example.txtar runs the same profile through the command line).
func TestDesignExampleBundle(t *testing.T) {
	src, err := filepath.Abs(filepath.Join("testdata", "design_example"))
	if err != nil {
		t.Fatal(err)
	}
	script, err := txtar.ParseFile(filepath.Join("testdata", "script", "design_example.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	profile, err := os.ReadFile(filepath.Join(src, "profiles", "example.cue"))
	if err != nil {
		t.Fatal(err)
	}
	if i := slices.IndexFunc(script.Files, func(f txtar.File) bool { return f.Name == "profiles/example.cue" }); i < 0 || !bytes.Equal(script.Files[i].Data, profile) {
		t.Fatal("design_example.txtar's profile is not testdata/design_example/profiles/example.cue")
	}
	dir := t.TempDir()
	copyTree(t, filepath.Join(src, "profiles"), filepath.Join(dir, "profiles"))
	if _, stderr, code := runIn(t, dir, "render"); code != 0 {
		t.Fatalf("render exited %d:\n%s", code, stderr)
	}
	matchTree(t, filepath.Join(dir, "out"), filepath.Join(src, "out"))
}

// TestDiffFormats: the diff of diff.txtar's profiles (its base and head,
// on the common base profile), as Markdown and as JSON, is byte for byte
// testdata/diff/diff.md and diff.json; diff.txtar holds the text form.
func TestDiffFormats(t *testing.T) {
	script, err := txtar.ParseFile(filepath.Join("testdata", "script", "diff.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	common, err := os.ReadFile(filepath.Join("testdata", "common", "base.cue"))
	if err != nil {
		t.Fatal(err)
	}
	want, err := filepath.Abs(filepath.Join("testdata", "diff"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	write := func(name string, data []byte) {
		if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("profiles/base.cue", common)
	write("base/base.cue", common)
	for _, f := range script.Files {
		switch f.Name {
		case "profiles/env.cue":
			write(f.Name, f.Data)
		case "base.cue.txt":
			write("base/env.cue", f.Data)
		}
	}
	for _, format := range []struct{ flag, file string }{{"markdown", "diff.md"}, {"json", "diff.json"}} {
		stdout, stderr, code := runIn(t, dir, "diff", "--base", "base", "-o", format.flag)
		if code != exitFound {
			t.Fatalf("diff -o %s exited %d, want %d:\n%s", format.flag, code, exitFound, stderr)
		}
		golden := filepath.Join(want, format.file)
		if os.Getenv("KARPGEN_UPDATE") == "1" {
			if err := os.WriteFile(golden, []byte(stdout), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if data, err := os.ReadFile(golden); err != nil || string(data) != stdout {
			t.Errorf("diff -o %s is not %s (KARPGEN_UPDATE=1 rewrites it):\n%s", format.flag, golden, stdout)
		}
	}
}
