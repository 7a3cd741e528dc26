// The end-to-end scenarios of `karpgen simulate`: karpgen as `make build`
// builds it (KARPGEN_BIN) and karpgen-simulate built here, on PATH, over
// the scenarios of testdata/script.
package simulate_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
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
		Cmds:          map[string]func(ts *testscript.TestScript, neg bool, args []string){"exits": exits, "mkfifo": mkfifo},
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
