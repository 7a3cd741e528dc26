// The end-to-end scenarios of `karpgen simulate`: karpgen as `make build`
// builds it (KARPGEN_BIN) and karpgen-simulate built here, on PATH, over
// the scenarios of testdata/script.
package simulate_test

import (
	"context"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/karpgen/karpgen/generators"
	"github.com/karpgen/karpgen/internal/action"
	"github.com/karpgen/karpgen/internal/doctor"
	"github.com/karpgen/karpgen/internal/model"
	"github.com/karpgen/karpgen/internal/simulate"
	"github.com/karpgen/karpgen/simulate/internal/sched"
)

// bin holds karpgen and karpgen-simulate for the scenarios.
var bin string

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	karpgen := os.Getenv("KARPGEN_BIN")
	if karpgen == "" {
		fmt.Fprintln(os.Stderr, "KARPGEN_BIN names the karpgen binary to test (make simulate-e2e sets it)")
		return 2
	}
	dir, err := os.MkdirTemp("", "karpgen-simulate-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	bin = dir
	build := exec.Command("go", "build", "-o", filepath.Join(dir, "karpgen-simulate"), "./cmd/karpgen-simulate")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building karpgen-simulate:", err)
		return 1
	}
	data, err := os.ReadFile(karpgen)
	if err == nil {
		err = os.WriteFile(filepath.Join(dir, "karpgen"), data, 0o755)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return m.Run()
}

// TestScripts runs testdata/script: $COMMON is karpgen's base profile of
// its own scenarios, $REPO the repository; helm is on PATH when
// HELM_BIN names it. KARPGEN_UPDATE=1 rewrites the expected files.
func TestScripts(t *testing.T) {
	repo, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	path := bin
	if helm := os.Getenv("HELM_BIN"); helm != "" {
		path += string(os.PathListSeparator) + filepath.Dir(helm)
	}
	testscript.Run(t, testscript.Params{
		Dir:           filepath.Join("testdata", "script"),
		UpdateScripts: os.Getenv("KARPGEN_UPDATE") == "1",
		Cmds:          map[string]func(ts *testscript.TestScript, neg bool, args []string){"exits": exits, "mkfifo": mkfifo, "upstream": upstream, "runs": runs, "upstream-disruption": upstreamDisruption},
		Setup: func(env *testscript.Env) error {
			env.Setenv("PATH", path)
			env.Setenv("REPO", repo)
			env.Setenv("COMMON", filepath.Join(repo, "cmd", "karpgen", "testdata", "common"))
			env.Setenv("SOURCE_DATE_EPOCH", "1738368000")
			// BIDI puts a right-to-left override into an argument.
			env.Setenv("BIDI", "\u202e")
			return nil
		},
	})
}

// exits runs a command and checks its exit code: `exits 1 karpgen
// simulate dev --workloads w`. Its stdout and stderr are kept.
// mkfifo makes a named pipe: `mkfifo w/pipe.yaml`.
func mkfifo(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: mkfifo PATH")
	}
	ts.Check(syscall.Mkfifo(ts.MkAbs(args[0]), 0o644))
}

func exits(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: exits CODE COMMAND [ARGS...]")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("exits: %v", err)
	}
	err = ts.Exec(args[1], args[2:]...)
	got := 0
	if ee, ok := err.(*exec.ExitError); ok {
		got = ee.ExitCode()
	} else if err != nil {
		ts.Fatalf("exits: %v", err)
	}
	if got != want {
		ts.Fatalf("%s exited %d, want %d", args[1], got, want)
	}
}

// runs runs a command N times and fails unless every run writes the
// same standard output and exits alike: `runs 20 karpgen simulate dev
// --workloads w`. The last run's output is kept.
func runs(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: runs N COMMAND [ARGS...]")
	}
	n, err := strconv.Atoi(args[0])
	if err != nil || n < 2 {
		ts.Fatalf("runs: N must be 2 or more: %q", args[0])
	}
	var first string
	firstCode := 0
	for i := range n {
		err := ts.Exec(args[1], args[2:]...)
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			ts.Fatalf("runs: %v", err)
		}
		out := ts.ReadFile("stdout")
		if i == 0 {
			first, firstCode = out, code
			continue
		}
		if out != first || code != firstCode {
			a, b := strings.Split(first, "\n"), strings.Split(out, "\n")
			line := 0
			for line < len(a) && line < len(b) && a[line] == b[line] {
				line++
			}
			at := func(l []string) string {
				if line < len(l) {
					return l[line]
				}
				return "(end)"
			}
			ts.Fatalf("run %d of %d differs from the first (exit %d, was %d), at line %d:\n  first: %s\n  this:  %s", i+1, n, code, firstCode, line+1, at(a), at(b))
		}
	}
}

var inProcess sync.Mutex

// upstream holds simulate's answer to Karpenter's own provisioner run to
// a settled state on the same request: `upstream ENV --workloads PATH...`
// builds the request karpgen simulate would send (from profiles/ in the
// script's folder), runs both, and fails naming each difference: nodes
// by pool and type (types compared by price, see sched.Compare) and
// Pending pods by workload. What both launch is logged. It leaves stdout
// to the command before it.
func upstream(ts *testscript.TestScript, neg bool, args []string) {
	// The scripts run in parallel; a run in this process sets Karpenter's
	// package-level well-known labels, as the helper does once.
	inProcess.Lock()
	defer inProcess.Unlock()
	state := ""
	if len(args) > 2 && args[1] == "--state" {
		state, args = ts.MkAbs(args[2]), append(args[:1:1], args[3:]...)
	}
	if neg || len(args) < 3 || args[1] != "--workloads" {
		ts.Fatalf("usage: upstream ENV [--state DIR] --workloads PATH...")
	}
	res, err := action.Check(action.Options{Dir: ts.MkAbs("profiles"), Envs: args[:1]})
	if err != nil || len(res.Envs) != 1 {
		ts.Fatalf("upstream: the profile: %v %v", err, res.Findings)
	}
	e := res.Envs[0]
	bundle, err := generators.Render(e)
	ts.Check(err)
	var paths []string
	for i := 2; i < len(args); i++ {
		if args[i] != "--workloads" {
			paths = append(paths, ts.MkAbs(args[i]))
		}
	}
	ws, err := action.ReadWorkloads(context.Background(), paths)
	ts.Check(err)
	prices, err := action.PricesOf("upstream", state, e)
	ts.Check(err)
	req, err := simulate.NewRequest(e, bundle.Files[model.FileNodePools], ws, prices)
	ts.Check(err)
	mine, err := sched.Run(req)
	ts.Check(err)
	theirs, err := sched.RunUpstream(req)
	ts.Check(err)
	diffs, ties := sched.Compare(req, mine, theirs)
	if len(diffs) > 0 {
		ts.Fatalf("simulate and Karpenter's provisioner differ:\n%s", strings.Join(diffs, "\n"))
	}
	pools := map[string]int{}
	for _, n := range theirs.Nodes {
		pools[n.Pool]++
	}
	pending := 0
	for _, n := range theirs.Pending {
		pending += n
	}
	ts.Logf("agree with Karpenter's provisioner: %d node(s) %v, %d Pending, in %d round(s); %d node(s) of another type of the same price",
		len(theirs.Nodes), pools, pending, theirs.Rounds, ties)
}

// disruptionRuns is how many reconciles of Karpenter's disruption
// controller the view's answer is held to.
const disruptionRuns = 12

// upstreamDisruption holds `simulate --disruption` to Karpenter's own
// disruption controller on the same captured cluster: `upstream-disruption
// ENV --state DIR [--at TIME]` builds the request karpgen would send (from
// profiles/ in the script's folder), runs the view once and one
// reconcile of the controller disruptionRuns times, and fails unless the
// view starts what one of those reconciles started.
func upstreamDisruption(ts *testscript.TestScript, neg bool, args []string) {
	inProcess.Lock()
	defer inProcess.Unlock()
	if neg || len(args) < 3 || args[1] != "--state" {
		ts.Fatalf("usage: upstream-disruption ENV --state DIR [--at TIME]")
	}
	var at time.Time
	if len(args) == 5 && args[3] == "--at" {
		var err error
		at, err = time.Parse(time.RFC3339, args[4])
		ts.Check(err)
	}
	res, err := action.Check(action.Options{Dir: ts.MkAbs("profiles"), Envs: args[:1]})
	if err != nil || len(res.Envs) != 1 {
		ts.Fatalf("upstream-disruption: the profile: %v %v", err, res.Findings)
	}
	e := res.Envs[0]
	bundle, err := generators.Render(e)
	ts.Check(err)
	dir := ts.MkAbs(args[2])
	prices, err := action.PricesOf("upstream", dir, e)
	ts.Check(err)
	root, err := os.OpenRoot(dir)
	ts.Check(err)
	defer root.Close()
	objs, err := doctor.Objects(doctor.NewState(root.FS(), dir), at)
	ts.Check(err)
	req, err := simulate.NewDisruptionRequest(e, bundle.Files[model.FileNodePools], prices, objs)
	ts.Check(err)
	mine, err := sched.Disrupt(req)
	ts.Check(err)
	var runs [][]simulate.Command
	for range disruptionRuns {
		theirs, err := sched.RunUpstreamDisruption(req)
		ts.Check(err)
		runs = append(runs, theirs)
	}
	answers, agree := sched.CompareDisruption(mine, runs)
	var got []string
	for _, k := range slices.Sorted(maps.Keys(answers)) {
		got = append(got, fmt.Sprintf("  %d of %d: %s", answers[k], disruptionRuns, k))
	}
	if !agree {
		ts.Fatalf("simulate --disruption starts what Karpenter's disruption controller never did in %d reconciles:\n  view: %s\nKarpenter:\n%s",
			disruptionRuns, sched.CommandsKey(mine.Commands), strings.Join(got, "\n"))
	}
	ts.Logf("agree with Karpenter's disruption controller: the view's answer is among its answers in %d reconciles:\n%s", disruptionRuns, strings.Join(got, "\n"))
}
