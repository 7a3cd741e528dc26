package conformance

import (
	"io"
	"os"
	"testing"

	"github.com/rhysd/actionlint"
)

// TestCIExampleLints: the GitHub Actions workflow the docs offer passes
// actionlint (its own checks; shellcheck and pyflakes run when installed)
// and reads the repository only.
func TestCIExampleLints(t *testing.T) {
	const path = "../docs/examples/github-actions.yaml"
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
	wf, perr := actionlint.Parse(src)
	if len(perr) > 0 {
		t.Fatal(perr[0])
	}
	if wf.Permissions == nil || wf.Permissions.Scopes["contents"] == nil || wf.Permissions.Scopes["contents"].Value.Value != "read" || len(wf.Permissions.Scopes) != 1 {
		t.Errorf("the workflow must declare permissions: contents: read and nothing more")
	}
}
