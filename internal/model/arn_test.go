package model_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/karpgen/karpgen/internal/oracle"
)

// bundlePath matches a string literal naming a file of the bundle.
var bundlePath = regexp.MustCompile(`"((iam|helm)/[a-z0-9-]+\.(json|yaml)|(ec2nodeclasses|nodepools|headroom|nodeoverlays|capacitybuffers)\.yaml|SUMMARY\.md)"`)

// TestNoHandBuiltARNs: the model is the one source of ARNs and of the
// bundle's file names; no other package's code writes an "arn: literal
// or a bundle path (tests and the upstream reference readers aside).
func TestNoHandBuiltARNs(t *testing.T) {
	root := oracle.Root()
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
				// The schema's explanations show an ARN as an example of a
				// value the user writes; they build none.
				example := rel == filepath.Join("internal", "load", "explain.go") && strings.Contains(line, "`\"arn:")
				if strings.Contains(line, `"arn:`) && !example {
					t.Errorf("%s:%d builds an ARN by hand: %s (use model.Names)", rel, i+1, strings.TrimSpace(line))
				}
				if m := bundlePath.FindString(line); m != "" || strings.Contains(line, `"controller-policy-`) {
					if m == "" {
						m = "controller-policy-..."
					}
					t.Errorf("%s:%d names a bundle file by hand: %s (use model's File constants)", rel, i+1, m)
				}
			}
			return nil
		})
	}
	if checked < 50 {
		t.Errorf("checked %d files", checked)
	}
}
