package layers

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/mod/modfile"
	"golang.org/x/mod/semver"

	"github.com/karpgen/karpgen/internal/facts"
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

// TestRecipeTablesFollowTheFacts: the two tables the recipe edits by hand
// beside the facts table are not forgotten when a minor arrives. Every
// Kubernetes minor a Karpenter minor supports has its release day in
// facts.KubernetesReleased, and simulate/go.mod runs the scheduler of the
// newest Karpenter minor, at no later patch than that release requires
// (the proxy may not serve the one it requires; docs/diff.md).
func TestRecipeTablesFollowTheFacts(t *testing.T) {
	for _, m := range facts.Minors {
		lo, hi := kubeMinor(t, m.Kubernetes[0]), kubeMinor(t, m.Kubernetes[1])
		for k := lo; k <= hi; k++ {
			if v := "1." + strconv.Itoa(k); facts.KubernetesReleased[v] == "" {
				t.Errorf("Karpenter %s supports Kubernetes %s, which facts.KubernetesReleased does not date (internal/facts/kubernetes.go)", m.Minor, v)
			}
		}
	}
	newest := facts.Newest()
	required := requirement(t, filepath.Join("..", "..", "reference", "karpenter", newest.Reference, "go.mod"), "sigs.k8s.io/karpenter")
	pinned := requirement(t, filepath.Join("..", "..", "simulate", "go.mod"), "sigs.k8s.io/karpenter")
	if semver.MajorMinor(pinned) != semver.MajorMinor(required) || semver.Compare(pinned, required) > 0 {
		t.Errorf("simulate/go.mod runs sigs.k8s.io/karpenter %s; the newest release, %s, requires %s: pin the scheduler of its minor", pinned, newest.Reference, required)
	}
}

// kubeMinor is the minor of a Kubernetes version "1.N".
func kubeMinor(t *testing.T, v string) int {
	t.Helper()
	n, err := strconv.Atoi(strings.TrimPrefix(v, "1."))
	if err != nil {
		t.Fatalf("Kubernetes version %q", v)
	}
	return n
}

// requirement is the version a go.mod requires of a module.
func requirement(t *testing.T, path, module string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	f, err := modfile.ParseLax(path, data, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range f.Require {
		if r.Mod.Path == module {
			return r.Mod.Version
		}
	}
	t.Fatalf("%s requires no %s", path, module)
	return ""
}
