package printer

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/karpgen/karpgen/internal/plan/upgrade"
)

// TestJSONShowsWhatItHolds: text from profiles, workloads and captures
// reaches JSON output with its C1 controls, bidirectional overrides and
// other invisible characters escaped, and reads back to the same value.
func TestJSONShowsWhatItHolds(t *testing.T) {
	in := map[string]string{"file": "a\u202egnp.yaml\u0085\u009b31m\u200b\U000E0041\t<é漢>"}
	var b bytes.Buffer
	if err := JSON(&b, in); err != nil {
		t.Fatal(err)
	}
	want := "{\n  \"file\": \"a\\u202egnp.yaml\\u0085\\u009b31m\\u200b\\udb40\\udc41\\t<é漢>\"\n}\n"
	if b.String() != want {
		t.Errorf("JSON wrote\n%q\nwant\n%q", b.String(), want)
	}
	var back map[string]string
	if err := json.Unmarshal(b.Bytes(), &back); err != nil || back["file"] != in["file"] {
		t.Errorf("read back %q (%v), want %q", back["file"], err, in["file"])
	}
}

// TestUpgradeRetirementIsEscaped: the retirement lines name what the
// capture holds (policy names, logical IDs), so UPGRADE.md escapes them
// and a name cannot open a link or an image in the rendered plan.
func TestUpgradeRetirementIsEscaped(t *testing.T) {
	p := &upgrade.Plan{Retirement: []string{"the stack still holds ![x](https://evil.example/p.png) <b>KarpenterPolicy</b>"}}
	var b bytes.Buffer
	if err := UpgradeMarkdown(&b, p); err != nil {
		t.Fatal(err)
	}
	want := "- the stack still holds \\!\\[x\\](https:&#8203;//evil.example/p.png) \\<b\\>KarpenterPolicy\\</b\\>\n"
	if !strings.Contains(b.String(), "## The getting-started stack\n\n"+want) {
		t.Errorf("UPGRADE.md has\n%s\nwant the line\n%q", b.String(), want)
	}
}
