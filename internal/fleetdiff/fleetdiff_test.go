package fleetdiff

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/karpgen/karpgen/internal/gitrev"
)

// TestDocsNameTheLimits: the limits the docs quote are the code's.
func TestDocsNameTheLimits(t *testing.T) {
	read := func(name string) string {
		data, err := os.ReadFile(filepath.Join("..", "..", "docs", name))
		if err != nil {
			t.Fatal(err)
		}
		return strings.Join(strings.Fields(string(data)), " ")
	}
	diffDoc, security := read("diff.md"), read("security.md")
	diffDoc2 := diffDoc
	for doc, want := range map[*string]string{
		&diffDoc:  fmt.Sprintf("a unified diff of at most %d lines", MaxDiffLines),
		&diffDoc2: fmt.Sprintf("over %d MiB or %s files", gitrev.MaxBytes>>20, thousands(gitrev.MaxFiles)),
		&security: fmt.Sprintf("more than %d MiB or %s files", gitrev.MaxBytes>>20, thousands(gitrev.MaxFiles)),
	} {
		if !strings.Contains(*doc, want) {
			t.Errorf("the docs do not say %q", want)
		}
	}
}

// thousands writes n with a comma between thousands, as the docs do.
func thousands(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
