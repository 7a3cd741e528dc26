package printer

import (
	"bytes"
	"encoding/json"
	"testing"
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
