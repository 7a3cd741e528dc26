package printer

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/karpgen/karpgen/internal/facts/drift"
	"github.com/karpgen/karpgen/internal/fleetdiff"
)

// keys lists every object key of a JSON value, as paths without indices.
func keys(v any, at string, out map[string]bool) {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			out[at+"."+k] = true
			if k == "from" || k == "to" {
				continue // any JSON value
			}
			keys(x, at+"."+k, out)
		}
	case []any:
		for _, x := range v {
			keys(x, at, out)
		}
	}
}

// full is a report with every field set.
func full() *fleetdiff.Report {
	return &fleetdiff.Report{
		Base: "origin/main:profiles", Environments: 2,
		Summary: fleetdiff.Summary{Changed: 1, Added: []string{}, Removed: []string{}, ReplaceNodes: []fleetdiff.EnvPools{{Env: "a", Pools: []string{"app"}}},
			IAM: []fleetdiff.EnvAccount{{Env: "a", Account: "1"}}, Versions: []string{"a"}},
		Changes: []fleetdiff.Env{{Name: "a", Status: "changed", Account: "1", Version: "1.3.8", VersionFrom: "1.2.3",
			Objects: []fleetdiff.Object{{Kind: "NodePool", Name: "app", Status: "changed", Effect: "drift",
				Changes: []drift.Change{{Path: "spec.x", From: "a", To: "b", Effect: drift.Drift, Reason: "NodePoolDrifted", Why: "w"}},
				Pools:   []fleetdiff.Pacing{{Pool: "app", Budgets: []drift.Budget{{Nodes: "0", Schedule: "@daily", Duration: "1h"}}, Summary: "s"}}}},
			IAM: []fleetdiff.Policy{{File: "iam/p.json", Status: "changed", ActionsAdded: []string{"x"}, ActionsRemoved: []string{},
				Statements: []fleetdiff.Statement{{Sid: "S", Status: "changed", Fields: []string{"Resource"}, ResourcesAdded: []string{"r"}, ResourcesRemoved: []string{}}}}},
			Helm:  []fleetdiff.Value{{Key: "k", From: nil, To: 1}},
			Files: []fleetdiff.File{{Path: "SUMMARY.md", Status: "changed", Diff: "d", Lines: 1}}}},
		Fleet: []fleetdiff.File{},
	}
}

// TestJSONShapeIsDocumented: the example of docs/diff.md decodes into a
// Report with no unknown field, and names every field a report has
// (budget schedules and the version change aside, which the prose names).
func TestJSONShapeIsDocumented(t *testing.T) {
	doc, err := os.ReadFile("../../docs/diff.md")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("(?s)```json\n(.*?)```").FindSubmatch(doc)
	if m == nil {
		t.Fatal("docs/diff.md has no JSON example")
	}
	dec := json.NewDecoder(bytes.NewReader(m[1]))
	dec.DisallowUnknownFields()
	var r fleetdiff.Report
	if err := dec.Decode(&r); err != nil {
		t.Fatalf("the example of docs/diff.md is not a report: %v", err)
	}
	var documented, produced any
	json.Unmarshal(m[1], &documented)
	var b bytes.Buffer
	if err := JSON(&b, full()); err != nil {
		t.Fatal(err)
	}
	json.Unmarshal(b.Bytes(), &produced)
	dk, pk := map[string]bool{}, map[string]bool{}
	keys(documented, "", dk)
	keys(produced, "", pk)
	for k := range pk {
		if !dk[k] && !slices.Contains([]string{".changes.versionFrom", ".changes.objects.pools.budgets.schedule", ".changes.objects.pools.budgets.duration"}, k) {
			t.Errorf("docs/diff.md's example does not show %s", k)
		}
	}
	for _, k := range []string{"versionFrom", "schedule"} {
		if !strings.Contains(string(doc), "`"+k+"`") && k == "versionFrom" {
			t.Errorf("docs/diff.md does not explain %s", k)
		}
	}
}

// TestMarkdownFitsAComment: a report larger than a comment is cut
// between environments, within GitHub's limit, and says how many
// sections it left out.
func TestMarkdownFitsAComment(t *testing.T) {
	r := full()
	one := r.Changes[0]
	one.Files = []fleetdiff.File{{Path: "SUMMARY.md", Status: "changed", Diff: strings.Repeat("+"+strings.Repeat("x", 79)+"\n", 40), Lines: 300}}
	r.Changes = nil
	for i := range 200 {
		e := one
		e.Name = fmt.Sprintf("env-%03d", i)
		r.Changes = append(r.Changes, e)
	}
	var b bytes.Buffer
	if err := DiffMarkdown(&b, r); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if len(out) > MaxMarkdown {
		t.Errorf("markdown of %d characters, more than %d", len(out), MaxMarkdown)
	}
	shown := strings.Count(out, "<details>")
	want := fmt.Sprintf("\n%d more sections do not fit in a comment: run `karpgen diff` to see them.\n", 200-shown)
	if shown == 0 || shown >= 200 || !strings.HasSuffix(out, want) {
		t.Errorf("%d sections shown; the end is %q, want %q", shown, out[max(0, len(out)-200):], want)
	}
	if strings.Count(out, "<details>") != strings.Count(out, "</details>") {
		t.Errorf("a section was cut in the middle")
	}
}

// TestHostileTextStaysText: names and values from a profile cannot close
// a section, start a table cell, inject HTML or a workflow command.
func TestHostileTextStaysText(t *testing.T) {
	r := full()
	e := &r.Changes[0]
	e.Name = "a</summary><img src=x onerror=alert(1)>"
	e.Objects[0].Name = "app|`x`"
	e.Objects[0].Changes[0].To = "</details>\n::error::pwned"
	e.Objects[0].Changes[0].Path = "spec.x"
	e.Files[0].Diff = "```\n</details>\n"
	var md, text bytes.Buffer
	if err := DiffMarkdown(&md, r); err != nil {
		t.Fatal(err)
	}
	if err := Diff(&text, r); err != nil {
		t.Fatal(err)
	}
	out := md.String()
	for _, want := range []string{
		"<summary><b>a&lt;/summary&gt;&lt;img src=x onerror=alert(1)&gt;</b>",
		"| NodePool `` app\\|`x` `` | `spec.x` | `\"a\"` | `\"\\u003c/details\\u003e\\n::error::pwned\"` |",
		"````diff\n```\n</details>\n````\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("markdown does not hold %q:\n%s", want, out)
		}
	}
	for _, l := range strings.Split(text.String(), "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "::") {
			t.Errorf("text output starts a line with a workflow command: %q", l)
		}
	}
}

// TestDocsNameTheCommentLimit: docs/diff.md quotes the limit of a
// comment as the code has it.
func TestDocsNameTheCommentLimit(t *testing.T) {
	data, err := os.ReadFile("../../docs/diff.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := strings.Join(strings.Fields(string(data)), " ")
	if want := fmt.Sprintf("limit of %d,%03d characters", MaxMarkdown/1000, MaxMarkdown%1000); !strings.Contains(doc, want) {
		t.Errorf("docs/diff.md does not say %q", want)
	}
}

// TestLongValuesShowWhereTheyDiffer: two values too long to show whole
// are shown from shortly before their first difference, so that the two
// sides never read the same; short ones are shown whole.
func TestLongValuesShowWhereTheyDiffer(t *testing.T) {
	long := func(last string) []any {
		var out []any
		for i := range 12 {
			out = append(out, map[string]any{"key": fmt.Sprintf("example.com/key-%02d", i), "operator": "In"})
		}
		return append(out, last)
	}
	from, to := values(long("old"), long("new"))
	if from == to {
		t.Fatalf("both sides read %q", from)
	}
	if !strings.HasPrefix(from, "…") || !strings.HasSuffix(from, `"old"]`) || !strings.HasSuffix(to, `"new"]`) {
		t.Errorf("from %q\nto   %q", from, to)
	}
	if n := utf8.RuneCountInString(to); n > maxValue+1 {
		t.Errorf("%d characters shown", n)
	}
	if from, to := values("a", nil); from != `"a"` || to != "(absent)" {
		t.Errorf("%s -> %s", from, to)
	}
	if from, to := values([]any{1, 2}, []any{1, 3}); from != "[1,2]" || to != "[1,3]" {
		t.Errorf("%s -> %s", from, to)
	}
}
