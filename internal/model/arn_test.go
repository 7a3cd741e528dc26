package model_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/karpgen/karpgen/internal/reference"
)

// TestNoHandBuiltARNs: the model is the one source of ARNs; no other
// package's code writes an "arn: literal (tests and the upstream
// reference readers aside).
func TestNoHandBuiltARNs(t *testing.T) {
	root := reference.Root()
	checked := 0
	for _, dir := range []string{"generators", "internal", "cmd"} {
		filepath.WalkDir(filepath.Join(root, dir), func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return err
			}
			rel, _ := filepath.Rel(root, path)
			if strings.HasPrefix(rel, filepath.Join("internal", "model")) || strings.HasPrefix(rel, filepath.Join("internal", "reference")) {
				return nil
			}
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			checked++
			for i, line := range strings.Split(string(data), "\n") {
				if strings.Contains(line, `"arn:`) {
					t.Errorf("%s:%d builds an ARN by hand: %s (use model.Names)", rel, i+1, strings.TrimSpace(line))
				}
			}
			return nil
		})
	}
	if checked < 50 {
		t.Errorf("checked %d files", checked)
	}
}
