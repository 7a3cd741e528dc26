package layers

import (
	"go/types"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"golang.org/x/tools/go/callgraph"
	"golang.org/x/tools/go/callgraph/cha"
	"golang.org/x/tools/go/callgraph/vta"
	"golang.org/x/tools/go/packages"
	"golang.org/x/tools/go/ssa"
	"golang.org/x/tools/go/ssa/ssautil"
)

// TestNoCallDoublesBack: a reader who follows any command goes into a
// package and never comes back to one it left. In the call graph of
// every package of the module (direct calls, and calls through function
// values and interfaces, which variable type analysis resolves to what
// may flow there), no package calls into one that calls back into it,
// however far round: no hook into the command, no sink that runs the
// pipeline, no predicate handed to the facts table. Calls through the
// standard library's and other modules' interfaces (fs.FS, io.Writer,
// error) are those interfaces' contracts and do not count; nor does the
// body of a loop over an iterator, which is the loop's own code, nor one
// package's initialization running those of the packages it imports.
func TestNoCallDoublesBack(t *testing.T) {
	calls := packageCalls(t)
	if len(calls) < 40 {
		t.Fatalf("the call graph holds %d packages; the module has more", len(calls))
	}
	arrows := 0
	for _, to := range calls {
		arrows += len(to)
	}
	t.Logf("%d packages, %d arrows between them", len(calls), arrows)
	for _, scc := range stronglyConnected(calls) {
		var b strings.Builder
		cycle := cycleIn(calls, scc)
		for i, p := range cycle {
			next := cycle[(i+1)%len(cycle)]
			b.WriteString("\n  " + p + " -> " + next + ": " + calls[p][next])
		}
		t.Errorf("%d packages call each other round (%s); one way round:%s", len(scc), strings.Join(scc, ", "), b.String())
	}
}

// packageCalls returns, for each package of the module, the packages of
// the module it calls, each with one call that shows it.
func packageCalls(t *testing.T) map[string]map[string]string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	cfg := &packages.Config{Mode: packages.LoadSyntax, Dir: root}
	pkgs, err := packages.Load(cfg, module+"...")
	if err != nil {
		t.Fatal(err)
	}
	if packages.PrintErrors(pkgs) > 0 {
		t.Fatal("the module does not load")
	}
	prog, _ := ssautil.Packages(pkgs, ssa.InstantiateGenerics)
	prog.Build()
	graph := vta.CallGraph(ssautil.AllFunctions(prog), cha.CallGraph(prog))

	out := map[string]map[string]string{}
	for fn, node := range graph.Nodes {
		from := pkgOf(fn)
		if !strings.HasPrefix(from, module) {
			continue
		}
		from = strings.TrimPrefix(from, module)
		if out[from] == nil {
			out[from] = map[string]string{}
		}
		for _, e := range node.Out {
			if foreignInterface(e) || loopOrInit(e.Callee.Func) {
				continue
			}
			for _, callee := range through(e.Callee) {
				to := strings.TrimPrefix(pkgOf(callee), module)
				if to == from || !strings.HasPrefix(pkgOf(callee), module) {
					continue
				}
				if _, seen := out[from][to]; !seen {
					out[from][to] = shortName(fn) + " calls " + shortName(callee) + " at " + shortPos(root, prog, e)
				}
			}
		}
	}
	return out
}

// pkgOf is the path of the package a function's code belongs to, "" for
// a synthetic one (a wrapper or a bound method).
func pkgOf(fn *ssa.Function) string {
	if fn == nil {
		return ""
	}
	if o := fn.Origin(); o != nil {
		fn = o
	}
	if fn.Pkg == nil {
		return ""
	}
	return fn.Pkg.Pkg.Path()
}

// through returns the functions with code that a call of fn reaches: fn
// itself, or what the synthetic wrapper fn calls.
func through(n *callgraph.Node) []*ssa.Function {
	var out []*ssa.Function
	seen := map[*callgraph.Node]bool{}
	var walk func(*callgraph.Node)
	walk = func(n *callgraph.Node) {
		if seen[n] {
			return
		}
		seen[n] = true
		if pkgOf(n.Func) != "" || n.Func.Synthetic == "" {
			out = append(out, n.Func)
			return
		}
		for _, e := range n.Out {
			walk(e.Callee)
		}
	}
	walk(n)
	return out
}

// loopOrInit reports the body of a range-over-func loop, or a package's
// initialization (as ssa names them).
func loopOrInit(fn *ssa.Function) bool {
	return fn.Synthetic == "range-over-func yield" || fn.Synthetic == "package initializer"
}

// foreignInterface reports a call through a method of an interface that
// another module (or the language: error) declares.
func foreignInterface(e *callgraph.Edge) bool {
	if e.Site == nil || !e.Site.Common().IsInvoke() {
		return false
	}
	named, ok := e.Site.Common().Value.Type().(*types.Named)
	if !ok {
		return false
	}
	pkg := named.Obj().Pkg()
	return pkg == nil || !strings.HasPrefix(pkg.Path()+"/", module)
}

func shortName(fn *ssa.Function) string {
	return strings.ReplaceAll(fn.String(), module, "")
}

func shortPos(root string, prog *ssa.Program, e *callgraph.Edge) string {
	p := prog.Fset.Position(e.Pos())
	if rel, err := filepath.Rel(root, p.Filename); err == nil {
		p.Filename = filepath.ToSlash(rel)
	}
	return p.String()
}

// stronglyConnected returns the sets of more than one package that all
// reach each other, each sorted, in a stable order.
func stronglyConnected(calls map[string]map[string]string) [][]string {
	var names []string
	for p := range calls {
		names = append(names, p)
	}
	slices.Sort(names)
	// Tarjan's algorithm.
	index, low := map[string]int{}, map[string]int{}
	onStack := map[string]bool{}
	var stack []string
	var sccs [][]string
	var visit func(string)
	visit = func(v string) {
		index[v], low[v] = len(index), len(index)
		stack = append(stack, v)
		onStack[v] = true
		for _, w := range sortedKeys(calls[v]) {
			if _, ok := index[w]; !ok {
				visit(w)
				low[v] = min(low[v], low[w])
			} else if onStack[w] {
				low[v] = min(low[v], index[w])
			}
		}
		if low[v] == index[v] {
			var scc []string
			for {
				w := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				onStack[w] = false
				scc = append(scc, w)
				if w == v {
					break
				}
			}
			if len(scc) > 1 {
				sccs = append(sccs, scc)
			}
		}
	}
	for _, v := range names {
		if _, ok := index[v]; !ok {
			visit(v)
		}
	}
	for _, scc := range sccs {
		slices.Sort(scc)
	}
	return sccs
}

// cycleIn returns a cycle through the first (by name) package of a
// strongly connected set, by the shortest path back to it.
func cycleIn(calls map[string]map[string]string, scc []string) []string {
	in := map[string]bool{}
	for _, p := range scc {
		in[p] = true
	}
	start := scc[0]
	prev := map[string]string{}
	queue := []string{start}
	for len(queue) > 0 {
		v := queue[0]
		queue = queue[1:]
		for _, w := range sortedKeys(calls[v]) {
			if !in[w] {
				continue
			}
			if w == start {
				cycle := []string{v}
				for cycle[0] != start {
					cycle = append([]string{prev[cycle[0]]}, cycle...)
				}
				return cycle
			}
			if _, ok := prev[w]; !ok {
				prev[w] = v
				queue = append(queue, w)
			}
		}
	}
	return scc
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
