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
	for doc, want := range map[*string]string{
		&diffDoc:  fmt.Sprintf("a unified diff of at most %d lines", MaxDiffLines),
		&security: fmt.Sprintf("into memory (at most %d MiB)", gitrev.MaxBytes>>20),
	} {
		if !strings.Contains(*doc, want) {
			t.Errorf("the docs do not say %q", want)
		}
	}
}
