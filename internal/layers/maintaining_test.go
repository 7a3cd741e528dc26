package layers

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestMaintainingRecipe walks docs/maintaining.md's recipe for a new
// Karpenter release: every script it runs exists and takes the form
// given, every file it edits exists, every make target is the Makefile's,
// and every package with a go:generate directive is in its table of
// generators (a generator added without the recipe naming it fails here),
// each naming the files it writes.
func TestMaintainingRecipe(t *testing.T) {
	root := filepath.Join("..", "..")
	read := func(name string) string {
		t.Helper()
		data, err := os.ReadFile(filepath.Join(root, name))
		if err != nil {
			t.Fatal(err)
		}
		return string(data)
	}
	doc, makefile := read("docs/maintaining.md"), read("Makefile")
	_, recipe, ok := strings.Cut(doc, "<!-- recipe: walked by TestMaintainingRecipe -->\n```sh\n")
	if !ok {
		t.Fatal("docs/maintaining.md has no recipe block")
	}
	recipe, _, _ = strings.Cut(recipe, "```")
	steps := strings.Split(strings.TrimSpace(recipe), "\n")
	if len(steps) < 6 {
		t.Fatalf("the recipe has %d steps", len(steps))
	}
	for _, step := range steps {
		f := strings.Fields(step)
		switch {
		case strings.HasPrefix(f[0], "hack/"):
			script := read(f[0])
			if info, err := os.Stat(filepath.Join(root, f[0])); err != nil || info.Mode()&0o111 == 0 {
				t.Errorf("%s: not an executable script", step)
			}
			if len(f) > 1 && !strings.Contains(script, f[1]) {
				t.Errorf("%s: the script takes no %s", step, f[1])
			}
		case f[0] == "$EDITOR":
			if _, err := os.Stat(filepath.Join(root, f[1])); err != nil {
				t.Errorf("%s: %v", step, err)
			}
			if !strings.Contains(doc, "`"+f[1]+"`") {
				t.Errorf("%s: the numbered steps do not say what to write in %s", step, f[1])
			}
		case f[0] == "make":
			if !regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(f[1]) + `:`).MatchString(makefile) {
				t.Errorf("%s: the Makefile has no target %s", step, f[1])
			}
		case slices.Contains(f, "go"):
		default:
			t.Errorf("%s: a step the walk does not know", step)
		}
	}

	// Every generator is in the table, with a file it writes that exists.
	directive := regexp.MustCompile(`(?m)^//go:generate `)
	var generators []string
	sources(t, func(path, rel string) error {
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if pkg := filepath.ToSlash(filepath.Dir(rel)); directive.Match(data) && !slices.Contains(generators, pkg) {
			generators = append(generators, pkg)
		}
		return nil
	})
	if len(generators) < 7 {
		t.Fatalf("%d packages with go:generate: %q", len(generators), generators)
	}
	row := regexp.MustCompile("(?m)^\\| `go generate \\./([^`]+)` \\| `([^`]+)`")
	table := map[string]string{}
	for _, m := range row.FindAllStringSubmatch(doc, -1) {
		table[m[1]] = m[2]
	}
	for _, g := range generators {
		writes, ok := table[g]
		if !ok {
			t.Errorf("%s has a go:generate directive; docs/maintaining.md's table of generators does not name it", g)
			continue
		}
		if !strings.Contains(writes, "<release>") {
			if _, err := os.Stat(filepath.Join(root, writes)); err != nil {
				t.Errorf("%s writes %s: %v", g, writes, err)
			}
		}
	}
	for g := range table {
		if !slices.Contains(generators, g) {
			t.Errorf("docs/maintaining.md names go generate ./%s, which has no go:generate directive", g)
		}
	}
}
