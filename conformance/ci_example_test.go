package conformance

import (
	"io"
	"maps"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/rhysd/actionlint"
)

// lintWorkflow runs actionlint (its own checks; shellcheck and pyflakes run when
// installed) on a workflow the docs offer, and parses it.
func lintWorkflow(t *testing.T, path string) *actionlint.Workflow {
	t.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	l, err := actionlint.NewLinter(io.Discard, &actionlint.LinterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	errs, err := l.Lint(path, src, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range errs {
		t.Errorf("%s:%d:%d: %s [%s]", path, e.Line, e.Column, e.Message, e.Kind)
	}
	if strings.Contains(string(src), "secrets.") {
		t.Errorf("%s reads a secret", path)
	}
	wf, perr := actionlint.Parse(src)
	if len(perr) > 0 {
		t.Fatal(perr[0])
	}
	return wf
}

// pinned is an action pinned by a full commit SHA.
var pinned = regexp.MustCompile(`^[a-z0-9-]+/[a-z0-9-]+@[0-9a-f]{40}$`)

// readOnly says whether permissions grant contents: read and nothing more.
func readOnly(p *actionlint.Permissions) bool {
	return p != nil && p.Scopes["contents"] != nil && p.Scopes["contents"].Value.Value == "read" && len(p.Scopes) == 1
}

// TestCIExampleLints: the workflow that checks out/ passes actionlint and
// reads the repository only.
func TestCIExampleLints(t *testing.T) {
	wf := lintWorkflow(t, "../docs/examples/github-actions.yaml")
	if !readOnly(wf.Permissions) {
		t.Errorf("the workflow must declare permissions: contents: read and nothing more")
	}
}

// TestDiffExampleLints: the workflow that comments karpgen diff on pull
// requests passes actionlint, runs on pull_request (never
// pull_request_target, which would run a fork's profiles with a write
// token), reads only by default, and grants pull-requests: write to the
// comment job alone, which runs nothing of the pull request.
func TestDiffExampleLints(t *testing.T) {
	wf := lintWorkflow(t, "../docs/examples/karpgen-diff.yaml")
	for _, ev := range wf.On {
		if ev.EventName() != "pull_request" {
			t.Errorf("the workflow runs on %s; only pull_request is safe for forks", ev.EventName())
		}
	}
	if !readOnly(wf.Permissions) {
		t.Errorf("the workflow must declare permissions: contents: read and nothing more")
	}
	writers := 0
	for id, job := range wf.Jobs {
		if job.Permissions == nil {
			continue
		}
		writers++
		s := job.Permissions.Scopes
		if id != "comment" || len(s) != 1 || s["pull-requests"] == nil || s["pull-requests"].Value.Value != "write" {
			t.Errorf("job %s: only the comment job may have permissions, and only pull-requests: write", id)
		}
		for _, step := range job.Steps {
			if a, ok := step.Exec.(*actionlint.ExecAction); ok && strings.HasPrefix(a.Uses.Value, "actions/checkout") {
				t.Errorf("job %s checks out the pull request with a write token", id)
			}
		}
		if job.If == nil || !strings.Contains(job.If.Value, "head.repo.full_name == github.repository") {
			t.Errorf("job %s must skip pull requests from forks", id)
		}
	}
	if writers != 1 {
		t.Errorf("%d jobs have permissions of their own, want the comment job alone", writers)
	}
}

// TestReleaseWorkflowLints: the release workflow passes actionlint, runs
// on version tags alone, grants nothing at the top and to its one job
// only what publishing needs (contents, packages, id-token and
// attestations: write), pins every action by a full commit SHA, and
// publishes only what hack/release.sh --verify checked.
func TestReleaseWorkflowLints(t *testing.T) {
	wf := lintWorkflow(t, "../.github/workflows/release.yml")
	for _, ev := range wf.On {
		if ev.EventName() != "push" {
			t.Errorf("the release runs on %s; only a pushed tag publishes", ev.EventName())
		}
	}
	if wf.Permissions == nil || len(wf.Permissions.Scopes) != 0 || wf.Permissions.All != nil {
		t.Errorf("the workflow must grant nothing at the top (permissions: {})")
	}
	for id, job := range wf.Jobs {
		got := map[string]string{}
		if job.Permissions != nil {
			for k, v := range job.Permissions.Scopes {
				got[k] = v.Value.Value
			}
		}
		want := map[string]string{"contents": "write", "packages": "write", "id-token": "write", "attestations": "write"}
		if !maps.Equal(got, want) {
			t.Errorf("job %s has permissions %v, want %v", id, got, want)
		}
		verified := false
		for _, step := range job.Steps {
			switch e := step.Exec.(type) {
			case *actionlint.ExecAction:
				if !pinned.MatchString(e.Uses.Value) {
					t.Errorf("job %s: %s is not pinned by a commit SHA", id, e.Uses.Value)
				}
			case *actionlint.ExecRun:
				run := e.Run.Value
				if strings.Contains(run, "--verify") {
					verified = true
				}
				if (strings.Contains(run, "gh release create") || strings.Contains(run, "cmpimage push")) && !verified {
					t.Errorf("job %s publishes before hack/release.sh --verify", id)
				}
			}
		}
		if !verified {
			t.Errorf("job %s never runs hack/release.sh --verify", id)
		}
	}
}

// TestCIWorkflowLints: the gate's workflow passes actionlint, runs on
// pushes to main, pull requests and a schedule (never
// pull_request_target, which would run a fork's code with a write
// token), reads only, pins every action by a full commit SHA, runs
// .ci/run, and runs every oracle on the schedule alone.
func TestCIWorkflowLints(t *testing.T) {
	wf := lintWorkflow(t, "../.github/workflows/ci.yml")
	var events []string
	for _, ev := range wf.On {
		events = append(events, ev.EventName())
	}
	if strings.Join(events, " ") != "push pull_request schedule" {
		t.Errorf("the gate runs on %v, want push, pull_request and schedule", events)
	}
	if !readOnly(wf.Permissions) {
		t.Errorf("the workflow must declare permissions: contents: read and nothing more")
	}
	runs := false
	for id, job := range wf.Jobs {
		if job.Permissions != nil {
			t.Errorf("job %s has permissions of its own", id)
		}
		for _, step := range job.Steps {
			switch e := step.Exec.(type) {
			case *actionlint.ExecAction:
				if !pinned.MatchString(e.Uses.Value) {
					t.Errorf("job %s: %s is not pinned by a commit SHA", id, e.Uses.Value)
				}
			case *actionlint.ExecRun:
				if e.Run.Value == "bash .ci/run" {
					runs = true
					if env := step.Env; env == nil || env.Vars["oracles"] == nil || !strings.Contains(env.Vars["oracles"].Value.Value, "github.event_name == 'schedule' && 'all'") {
						t.Errorf("job %s: ORACLES is not all on the schedule alone", id)
					}
				}
			}
		}
	}
	if !runs {
		t.Error("no job runs bash .ci/run")
	}
}
