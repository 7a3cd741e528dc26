package output

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/karpgen/karpgen/internal/model"
)

// TestLeftoverIsAnError: when what a render replaced cannot be removed,
// the render fails naming it instead of leaving .karpgen-<env>-old-* in
// out/ with exit 0; the next render removes it.
func TestLeftoverIsAnError(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	render := func(content string) error {
		var buf bytes.Buffer
		d, err := NewDisk(out, DiskOptions{Stdout: &buf, Stderr: &buf})
		if err != nil {
			return err
		}
		defer d.Close()
		if err := d.Put(&model.Bundle{Env: "dev", Files: map[string][]byte{"a.yaml": []byte(content)}}); err != nil {
			return err
		}
		return d.Finish(nil)
	}
	if err := render("one\n"); err != nil {
		t.Fatal(err)
	}
	removeAll = func(string) error { return errors.New("permission denied") }
	err := render("two\n")
	removeAll = os.RemoveAll
	if err == nil || !strings.Contains(err.Error(), "could not be removed: "+filepath.ToSlash(out)+"/.karpgen-dev-") {
		t.Fatalf("render with a leftover: %v", err)
	}
	if data, _ := os.ReadFile(filepath.Join(out, "dev", "a.yaml")); string(data) != "two\n" {
		t.Errorf("the new bundle is not in place: %q", data)
	}
	if err := render("three\n"); err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(out)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".karpgen-") && e.Name() != ".karpgen-lock" {
			t.Errorf("left in out/: %s", e.Name())
		}
	}
}
