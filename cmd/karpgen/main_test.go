package main

import (
	"errors"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
	"go.yaml.in/yaml/v3"

	"github.com/karpgen/karpgen/internal/lint"
)

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"karpgen": func() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) },
	})
}

// TestScripts runs the end-to-end scenarios in testdata/script. A script
// that shares the common base profile copies it in its first line
// (cp $COMMON/base.cue profiles/base.cue); $HOOK is hack/pre-commit.
// KARPGEN_UPDATE=1 rewrites the expected files inside the scripts.
func TestScripts(t *testing.T) {
	common, err := filepath.Abs(filepath.Join("testdata", "common"))
	if err != nil {
		t.Fatal(err)
	}
	hook, err := filepath.Abs(filepath.Join("..", "..", "hack", "pre-commit"))
	if err != nil {
		t.Fatal(err)
	}
	testscript.Run(t, testscript.Params{
		Dir:                 filepath.Join("testdata", "script"),
		UpdateScripts:       os.Getenv("KARPGEN_UPDATE") == "1",
		RequireExplicitExec: true,
		Cmds:                map[string]func(ts *testscript.TestScript, neg bool, args []string){"exits": cmdExits, "workflow-step": cmdWorkflowStep},
		Setup: func(env *testscript.Env) error {
			env.Setenv("HOOK", hook)
			env.Setenv("REPO", filepath.Dir(filepath.Dir(hook)))
			// vet checks support windows on a fixed day, 2025-02-01, on
			// which the base profile's Karpenter 1.2 was supported;
			// rule_version_support.txtar names its days with --on.
			env.Setenv("SOURCE_DATE_EPOCH", "1738368000")
			env.Setenv("COMMON", common)
			// NL puts a line break into an argument: 'a'${NL}'b'.
			env.Setenv("NL", "\n")
			return nil
		},
	})
}

// cmdExits runs a command and checks its exit code: `exits 3 karpgen vet`.
// Its stdout and stderr are kept for the assertions that follow.
func cmdExits(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: exits CODE COMMAND [ARGS...]")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("exits: bad code %q", args[0])
	}
	got := 0
	if err := ts.Exec(args[1], args[2:]...); err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			ts.Fatalf("exits: %v", err)
		}
		got = ee.ExitCode()
	}
	if got != want {
		ts.Fatalf("%s exited with %d, want %d", args[1], got, want)
	}
}

// cmdWorkflowStep writes the script of a GitHub Actions workflow's step
// to a file, to be run as the runner runs it (bash -eo pipefail):
// `workflow-step WORKFLOW "STEP NAME" FILE`.
func cmdWorkflowStep(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 3 {
		ts.Fatalf("usage: workflow-step WORKFLOW STEP FILE")
	}
	src, err := os.ReadFile(ts.MkAbs(args[0]))
	ts.Check(err)
	var wf struct {
		Jobs map[string]struct {
			Steps []struct{ Name, Run string }
		}
	}
	if err := yaml.Unmarshal(src, &wf); err != nil {
		ts.Fatalf("%s: %v", args[0], err)
	}
	for _, id := range slices.Sorted(maps.Keys(wf.Jobs)) {
		for _, step := range wf.Jobs[id].Steps {
			if step.Run != "" && step.Name == args[1] {
				ts.Check(os.WriteFile(ts.MkAbs(args[2]), []byte(step.Run), 0o644))
				return
			}
		}
	}
	ts.Fatalf("%s has no step %q that runs a script", args[0], args[1])
}

// TestEveryRuleHasAScenario: each rule of the catalog has its scenario,
// testdata/script/rule_<group>_<name>.txtar, where vet refuses (or warns
// about) a profile that breaks it.
func TestEveryRuleHasAScenario(t *testing.T) {
	for _, r := range lint.Rules() {
		name := "rule_" + strings.NewReplacer("/", "_", "-", "_").Replace(r.ID) + ".txtar"
		data, err := os.ReadFile(filepath.Join("testdata", "script", name))
		if err != nil {
			t.Errorf("rule %s has no scenario %s", r.ID, name)
			continue
		}
		if !strings.Contains(string(data), "["+r.ID+"]") {
			t.Errorf("%s never shows a finding of %s", name, r.ID)
		}
	}
}
