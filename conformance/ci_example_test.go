package conformance

import (
	"io"
	"os"
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
