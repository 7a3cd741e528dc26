package printer

import (
	"bytes"
	"strings"
	"testing"

	"github.com/karpgen/karpgen/internal/diag"
)

// TestFindingsOneForm: a schema error, a lint finding two environments
// share through a base, a doctor finding and an upgrade blocker print in
// the one text form and encode in the one JSON form.
func TestFindingsOneForm(t *testing.T) {
	at := diag.Pos{File: "profiles/base.cue", Line: 12, Col: 3}
	fs := []diag.Finding{
		{Rule: "schema", Severity: diag.Error, Env: "dev", Path: "environments.dev.cluster.region", Message: `"eu-west-9" is not a region`,
			Pos: diag.Pos{File: "profiles/dev.cue", Line: 4, Col: 11}, Also: []diag.Pos{{File: "schema/profile.cue", Line: 30, Col: 2}}},
		{Rule: "nodepool/zone", Severity: diag.Warning, Env: "staging", Message: "zone z-b is not in the region", Pos: at, Hint: "use z-a"},
		{Rule: "nodepool/zone", Severity: diag.Warning, Env: "prod", Message: "zone z-b is not in the region", Pos: at, Hint: "use z-a"},
		{Rule: "doctor/kubernetes-version", Severity: diag.Error, Resource: "cluster ws-test", Expected: "Kubernetes 1.32",
			Found: "Kubernetes 1.30\x1b[2J", Hint: "aws eks update-cluster-version"},
		{Rule: "upgrade/known-regression", Severity: diag.Error, Message: "Karpenter 1.8.4 has a known regression"},
	}
	var text bytes.Buffer
	Findings(&text, fs)
	want := `profiles/dev.cue:4:11: error: dev: "eu-west-9" is not a region [schema]
    see schema/profile.cue:30:2
profiles/base.cue:12:3: warning: prod, staging: zone z-b is not in the region [nodepool/zone]
    hint: use z-a
error: cluster ws-test [doctor/kubernetes-version]
    expected: Kubernetes 1.32
    found:    "Kubernetes 1.30\x1b[2J"
    hint:     aws eks update-cluster-version
error: Karpenter 1.8.4 has a known regression [upgrade/known-regression]
`
	if text.String() != want {
		t.Errorf("text:\n%s\nwant:\n%s", text.String(), want)
	}

	var js bytes.Buffer
	if err := FindingsJSON(&js, []diag.Finding{fs[1], fs[3]}); err != nil {
		t.Fatal(err)
	}
	wantJSON := `{
  "findings": [
    {
      "rule": "nodepool/zone",
      "severity": "warning",
      "env": "staging",
      "message": "zone z-b is not in the region",
      "pos": {
        "file": "profiles/base.cue",
        "line": 12,
        "column": 3
      },
      "hint": "use z-a"
    },
    {
      "rule": "doctor/kubernetes-version",
      "severity": "error",
      "resource": "cluster ws-test",
      "expected": "Kubernetes 1.32",
      "found": "Kubernetes 1.30\u001b[2J",
      "hint": "aws eks update-cluster-version"
    }
  ]
}
`
	if js.String() != wantJSON {
		t.Errorf("JSON:\n%s\nwant:\n%s", js.String(), wantJSON)
	}
}

// TestLineStartsNoWorkflowCommand: a file name that is a workflow
// command does not start a line.
func TestLineStartsNoWorkflowCommand(t *testing.T) {
	l := Line(diag.Finding{Rule: "schema", Severity: diag.Error, Message: "m", Pos: diag.Pos{File: "::error::x.cue", Line: 1, Col: 1}})
	if strings.HasPrefix(l, "::") {
		t.Errorf("line %q starts a workflow command", l)
	}
}
