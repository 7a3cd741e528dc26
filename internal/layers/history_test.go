package layers

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// historyBase is the last commit before the rule of hack/commit-msg held:
// every commit after it has a subject of at most 72 characters and a body.
const historyBase = "4a34bf38e2551daefce87de3b2a617a5000e0977"

// TestCommitMessages holds the history after historyBase to the rule
// hack/commit-msg checks at commit time: a subject of at most 72
// characters, a blank line, a body that says why.
func TestCommitMessages(t *testing.T) {
	root := "../.."
	if _, err := os.Stat(root + "/.git"); err != nil {
		t.Skip("not a git checkout")
	}
	if err := exec.Command("git", "-C", root, "cat-file", "-e", historyBase+"^{commit}").Run(); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("the history does not reach %s (a shallow clone?)", historyBase)
		}
		t.Skipf("the history does not reach %s", historyBase)
	}
	out, err := exec.Command("git", "-C", root, "log", "--format=%h%x00%B%x01", historyBase+"..HEAD").Output()
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, entry := range strings.Split(string(out), "\x01") {
		entry = strings.TrimLeft(entry, "\n")
		if entry == "" {
			continue
		}
		n++
		hash, msg, _ := strings.Cut(entry, "\x00")
		lines := strings.Split(strings.TrimRight(msg, "\n"), "\n")
		switch {
		case len(lines[0]) > 72:
			t.Errorf("%s: the subject is %d characters: %s", hash, len(lines[0]), lines[0])
		case len(lines) < 3 || lines[1] != "" || strings.TrimSpace(strings.Join(lines[2:], "")) == "":
			t.Errorf("%s: no body below a blank line: %s", hash, lines[0])
		}
	}
	t.Logf("%d commits after %s", n, historyBase)
}
