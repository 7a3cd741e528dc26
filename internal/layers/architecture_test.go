package layers

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestArchitectureNamesEveryPackage: docs/architecture.md, a newcomer's
// map of the tree by room, names every package of the module (itself or
// a folder above it), no folder that is gone, and each package in the
// room the layering test gives it.
func TestArchitectureNamesEveryPackage(t *testing.T) {
	root := filepath.Join("..", "..")
	data, err := os.ReadFile(filepath.Join(root, "docs", "architecture.md"))
	if err != nil {
		t.Fatal(err)
	}
	layout := string(data)
	var listed []string
	// A heading "## 6. to 8. ..." holds rooms 6 to 8 (5 to 7 from zero).
	heading := regexp.MustCompile(`^## ([0-9]+)\.(?: to ([0-9]+)\.)?`)
	lo, hi := -1, -1
	for _, line := range strings.Split(layout, "\n") {
		if m := heading.FindStringSubmatch(line); m != nil {
			lo, _ = strconv.Atoi(m[1])
			hi = lo
			if m[2] != "" {
				hi, _ = strconv.Atoi(m[2])
			}
			lo, hi = lo-1, hi-1
		}
		if first, _, _ := strings.Cut(line, " "); strings.HasSuffix(first, "/") && !strings.HasPrefix(line, " ") {
			listed = append(listed, first)
			if room := roomOf(strings.TrimSuffix(first, "/")); room >= 0 && (room < lo || room > hi) {
				t.Errorf("docs/architecture.md puts %s in room %d to %d; the layering test, in room %d", first, lo+1, hi+1, room+1)
			}
			if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(first))); err != nil {
				t.Errorf("docs/architecture.md names %s, which does not exist", first)
			}
		}
	}
	if len(listed) < 20 {
		t.Fatalf("the layout lists %d folders: %q", len(listed), listed)
	}
	for pkg := range imports(t) {
		if !slices.ContainsFunc(listed, func(dir string) bool { return strings.HasPrefix(pkg+"/", dir) }) {
			t.Errorf("docs/architecture.md does not name %s/ (or a folder above it)", pkg)
		}
	}
}

// TestInternalFoldersAreFew: internal/ stays a map a newcomer reads at a
// glance; a new package joins the family of its kind (facts, iam, plan,
// doctor, util) before it takes a folder of its own.
func TestInternalFoldersAreFew(t *testing.T) {
	entries, err := os.ReadDir(filepath.Join("..", "..", "internal"))
	if err != nil {
		t.Fatal(err)
	}
	var dirs []string
	for _, e := range entries {
		if e.IsDir() {
			dirs = append(dirs, e.Name())
		}
	}
	if len(dirs) > 26 {
		t.Errorf("internal/ holds %d folders, more than 26: %v", len(dirs), dirs)
	}
}
