package rooms

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestReadmeLayoutNamesEveryPackage: the README's layout, a newcomer's
// map of the tree, names every package of the module (itself or a folder
// above it) and no folder that is gone.
func TestReadmeLayoutNamesEveryPackage(t *testing.T) {
	root := filepath.Join("..", "..")
	data, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, layout, ok := strings.Cut(string(data), "\n## Layout\n")
	if !ok {
		t.Fatal("README.md has no Layout section")
	}
	if end := strings.Index(layout, "\n## "); end >= 0 {
		layout = layout[:end]
	}
	var listed []string
	for _, line := range strings.Split(layout, "\n") {
		if first, _, _ := strings.Cut(line, " "); strings.HasSuffix(first, "/") && !strings.HasPrefix(line, " ") {
			listed = append(listed, first)
			if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(first))); err != nil {
				t.Errorf("the layout names %s, which does not exist", first)
			}
		}
	}
	if len(listed) < 20 {
		t.Fatalf("the layout lists %d folders: %q", len(listed), listed)
	}
	for pkg := range imports(t) {
		if !slices.ContainsFunc(listed, func(dir string) bool { return strings.HasPrefix(pkg+"/", dir) }) {
			t.Errorf("the README's layout does not name %s/ (or a folder above it)", pkg)
		}
	}
}
