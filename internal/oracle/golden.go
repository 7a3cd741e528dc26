package oracle

import (
	"bytes"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
)

// Update says whether the tests rewrite their golden files
// (KARPGEN_UPDATE=1) instead of comparing with them.
func Update() bool { return os.Getenv("KARPGEN_UPDATE") == "1" }

// Golden holds got to the golden file path, whole; with Update it
// writes the file instead.
func Golden(t TB, path string, got []byte) {
	t.Helper()
	if Update() {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (KARPGEN_UPDATE=1 writes it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs (KARPGEN_UPDATE=1 rewrites it):\n%s", path, got)
	}
}

// GoldenTree holds every file below got to the golden tree want, whole
// files, none missing or extra; with Update it makes want a copy of got.
func GoldenTree(t TB, got, want string) {
	t.Helper()
	if Update() {
		if err := os.RemoveAll(want); err != nil {
			t.Fatal(err)
		}
		if err := os.CopyFS(want, os.DirFS(got)); err != nil {
			t.Fatal(err)
		}
		return
	}
	g, w := Tree(t, got), Tree(t, want)
	for _, name := range slices.Sorted(maps.Keys(g)) {
		if _, ok := w[name]; !ok {
			t.Errorf("%s: written, and not in %s (KARPGEN_UPDATE=1 adds it)", name, want)
		} else if !bytes.Equal(g[name], w[name]) {
			t.Errorf("%s differs from %s (KARPGEN_UPDATE=1 rewrites it):\n%s", name, filepath.Join(want, name), g[name])
		}
	}
	for _, name := range slices.Sorted(maps.Keys(w)) {
		if _, ok := g[name]; !ok {
			t.Errorf("%s: in %s, and not written (KARPGEN_UPDATE=1 removes it)", name, want)
		}
	}
}

// Tree is every regular file below dir, by slash-separated path.
func Tree(t TB, dir string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		out[filepath.ToSlash(rel)], err = os.ReadFile(path)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
