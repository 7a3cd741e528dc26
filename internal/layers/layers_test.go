package layers

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/karpgen/karpgen/"

// rooms are the packages by room, from the bottom (see the package
// doc); a name ending in "/..." stands for the packages below it.
var rooms = [][]string{
	{"schema", "internal/profile/...", "internal/facts", "internal/diag", "internal/util/...", "internal/iameval", "internal/facts/drift",
		"internal/gitrev", "internal/templates", "internal/facts/kubelet", "internal/fieldpos", "internal/bench/fleet", "internal/simulate/wire"},
	{"internal/model", "internal/facts/instancetypes", "internal/iam/iampolicy", "internal/oracle", "internal/budget"},
	{"internal/load", "internal/load/internal/...", "generators", "internal/iam/guardrails", "internal/iam/cfnpreview"},
	{"internal/lint"},
	{"internal/envcheck", "internal/importer", "internal/output", "internal/fleetdiff", "internal/doctor", "internal/doctor/live", "internal/plan/promote", "internal/plan/rotate", "internal/plan/migrate", "internal/plan/upgrade", "internal/simulate"},
	{"internal/printer"},
	{"internal/action"},
	{"cmd/...", "conformance", "hack/...", "internal/bench/...", "internal/layers", "internal/envcheck/envchecktest"},
}

func roomOf(pkg string) int {
	best, room := -1, -1
	for i, r := range rooms {
		for _, p := range r {
			prefix, tree := strings.CutSuffix(p, "/...")
			if (pkg == prefix || tree && strings.HasPrefix(pkg, prefix+"/")) && len(prefix) > best {
				best, room = len(prefix), i
			}
		}
	}
	return room
}

// sources calls each with every non-test Go file of the module (outside
// upstream's reference artifacts, test data and the modules nested in the
// repository, tools/ and test/argocd/): its path, and its path relative
// to the repository.
func sources(t *testing.T, each func(path, rel string) error) {
	t.Helper()
	root := filepath.Join("..", "..")
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if rel == "reference" || d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".") && rel != "." {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil && rel != "." {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		return each(path, rel)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// imports lists, for each package of the module, the packages of the
// module its non-test files import.
func imports(t *testing.T) map[string][]string {
	out := map[string][]string{}
	sources(t, func(path, rel string) error {
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		pkg := filepath.ToSlash(filepath.Dir(rel))
		if _, ok := out[pkg]; !ok {
			out[pkg] = nil
		}
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if dep, ok := strings.CutPrefix(p, module); ok && !slices.Contains(out[pkg], dep) {
				out[pkg] = append(out[pkg], dep)
			}
		}
		return nil
	})
	return out
}

// TestNoUpwardImports: every package has a room, and imports only from
// its own room and the rooms below.
func TestNoUpwardImports(t *testing.T) {
	pkgs := imports(t)
	if len(pkgs) < 30 {
		t.Fatalf("only %d packages found", len(pkgs))
	}
	edges := 0
	for pkg, deps := range pkgs {
		from := roomOf(pkg)
		if from < 0 {
			t.Errorf("%s has no room: add it to rooms", pkg)
			continue
		}
		for _, dep := range deps {
			edges++
			if to := roomOf(dep); to > from {
				t.Errorf("%s (room %d) imports %s (room %d), a room above it", pkg, from+1, dep, to+1)
			}
		}
	}
	t.Logf("%d packages, %d imports between them", len(pkgs), edges)
}

// familyOf is the folder of internal/ a package belongs to (its
// family: internal/facts/drift is of facts), or the package itself
// outside internal/.
func familyOf(pkg string) string {
	if rest, ok := strings.CutPrefix(pkg, "internal/"); ok {
		first, _, _ := strings.Cut(rest, "/")
		return "internal/" + first
	}
	return pkg
}

// TestNoFamilyRunsBackUp: the families of internal/ (facts, iam, plan,
// doctor...) are drawn as one box each on the map. Drawn that way, no
// arrow may run back up: no family imports one that imports it, however
// far round. A family whose packages stand in several rooms must not
// have a room of another family between them that it both imports and
// is imported by.
func TestNoFamilyRunsBackUp(t *testing.T) {
	graph := map[string]map[string]bool{}
	for pkg, deps := range imports(t) {
		from := familyOf(pkg)
		if graph[from] == nil {
			graph[from] = map[string]bool{}
		}
		for _, dep := range deps {
			if to := familyOf(dep); to != from {
				graph[from][to] = true
			}
		}
	}
	// reaches says whether to can be reached from from.
	reaches := func(from, to string) bool {
		seen := map[string]bool{}
		stack := []string{from}
		for len(stack) > 0 {
			n := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			for next := range graph[n] {
				if next == to {
					return true
				}
				if !seen[next] {
					seen[next] = true
					stack = append(stack, next)
				}
			}
		}
		return false
	}
	var back []string
	for from, tos := range graph {
		for to := range tos {
			if reaches(to, from) {
				back = append(back, from+" -> "+to)
			}
		}
	}
	slices.Sort(back)
	for _, b := range back {
		t.Errorf("%s runs back up: the family it imports imports it again", b)
	}
}

// TestRoomsNameRealPackages: the table names no package that is gone.
func TestRoomsNameRealPackages(t *testing.T) {
	for _, r := range rooms {
		for _, p := range r {
			dir, _ := strings.CutSuffix(p, "/...")
			if _, err := os.Stat(filepath.Join("..", "..", dir)); err != nil {
				t.Errorf("rooms names %s, which does not exist", p)
			}
		}
	}
}

// TestOracleIsForTests: the upstream artifacts are the tests' oracle;
// no package that ships imports the helpers that read them, and they do
// not import testing themselves.
func TestOracleIsForTests(t *testing.T) {
	for pkg, deps := range imports(t) {
		if slices.Contains(deps, "internal/oracle") && pkg != "hack/internal/gosrctest" {
			t.Errorf("%s imports internal/oracle outside its tests", pkg)
		}
	}
	files, _ := filepath.Glob(filepath.Join("..", "oracle", "*.go"))
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		parsed, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range parsed.Imports {
			if imp.Path.Value == `"testing"` {
				t.Errorf("%s imports testing", f)
			}
		}
	}
}

// commandLineImports are what the command line may import: the action
// layer, the printers, the findings they share, and helpers of its own
// (escaping for the terminal, the progress meter, and the process's
// start: the collector's policy and the binary mapped in at once).
var commandLineImports = []string{"internal/action", "internal/printer", "internal/diag", "internal/util/escape", "internal/util/gcpolicy", "internal/util/prefault", "internal/util/progress"}

// TestCommandLineIsThin: cmd/karpgen binds flags onto actions and prints
// what they return; every command's work is in internal/action.
func TestCommandLineIsThin(t *testing.T) {
	deps := imports(t)["cmd/karpgen"]
	if len(deps) == 0 {
		t.Fatal("cmd/karpgen imports nothing of the module")
	}
	for _, dep := range deps {
		if !slices.Contains(commandLineImports, dep) {
			t.Errorf("cmd/karpgen imports %s: put what it does in internal/action, what it prints in internal/printer", dep)
		}
	}
}

// kustomizeImporters are the packages that may import kustomize: the
// builds of bundles and of workload folders are in internal/output.
// Kustomize's plugin loader links the plugin package, and with cgo on
// that makes every binary that links it, tests too, link externally
// (two to three times as long); the simulation and the printers are
// given the build instead (simulate.Kustomize).
var kustomizeImporters = []string{"internal/output"}

// TestKustomizeStaysInOutput: no other package imports kustomize, and
// neither the simulation nor the printers reach internal/output.
func TestKustomizeStaysInOutput(t *testing.T) {
	sources(t, func(path, rel string) error {
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		pkg := filepath.ToSlash(filepath.Dir(rel))
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if strings.HasPrefix(p, "sigs.k8s.io/kustomize/") && !slices.Contains(kustomizeImporters, pkg) {
				t.Errorf("%s imports %s: build with kustomize in internal/output", rel, p)
			}
		}
		return nil
	})
	deps := imports(t)
	for _, pkg := range []string{"internal/simulate", "internal/printer"} {
		if reach := reachable(deps, pkg); slices.Contains(reach, "internal/output") {
			t.Errorf("%s reaches internal/output, and with it kustomize", pkg)
		}
	}
}

// reachable lists the packages of the module pkg imports, directly or not.
func reachable(deps map[string][]string, pkg string) []string {
	var out []string
	todo := slices.Clone(deps[pkg])
	for len(todo) > 0 {
		p := todo[0]
		todo = todo[1:]
		if slices.Contains(out, p) {
			continue
		}
		out = append(out, p)
		todo = append(todo, deps[p]...)
	}
	return out
}
