package output_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/karpgen/karpgen/generators"
	"github.com/karpgen/karpgen/internal/model"
	"github.com/karpgen/karpgen/internal/output"
)

// TestCheckSeesEveryByte: after a render, changing one byte of any file
// karpgen wrote under out/<env>/ (the manifest and the upgrade plans
// included) or out/ itself is a difference for render --check.
func TestCheckSeesEveryByte(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	b := bundle("dev", map[string]string{"a.yaml": "a\n", "iam/b.json": "{}\n"})
	plan := bundle("dev/upgrade/1.9.2", map[string]string{"plan.json": "{\"to\": \"1.9.2\"}\n", "iam/t.json": "{\"Action\": [\"ec2:RunInstances\"]}\n"})
	replan := func(env string, files map[string][]byte) (*model.Bundle, error) {
		if env != "dev" || files["plan.json"] == nil {
			return nil, errors.New("no plan")
		}
		return plan, nil
	}
	fleet := map[string][]byte{generators.ApplicationSetFile: []byte("set\n")}
	var stdout bytes.Buffer
	disk, err := output.NewDisk(out, output.DiskOptions{Names: []string{"dev"}, Stdout: &stdout, Stderr: &stdout, Replan: replan})
	if err != nil {
		t.Fatal(err)
	}
	// The plan is written as upgrade --write writes it, then the render.
	if err := disk.Put(plan); err != nil {
		t.Fatal(err)
	}
	if err := disk.Finish(nil); err != nil {
		t.Fatal(err)
	}
	if err := disk.Put(b); err != nil {
		t.Fatal(err)
	}
	if err := disk.Finish(fleet); err != nil {
		t.Fatal(err)
	}
	disk.Close()

	check := func() error {
		c := &output.Check{Dir: out, Stdout: &bytes.Buffer{}, Names: []string{"dev"}, Replan: replan}
		if err := c.Put(b); err != nil {
			return err
		}
		return c.Finish(fleet)
	}
	if err := check(); err != nil {
		t.Fatalf("a fresh render differs: %v", err)
	}
	files, err := output.ReadDir(out)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{".karpgen-files", "a.yaml", "iam/b.json", "upgrade/1.9.2/.karpgen-files", "upgrade/1.9.2/iam/t.json", "upgrade/1.9.2/plan.json"}
	var got []string
	for p := range files {
		if rest, ok := bytes.CutPrefix([]byte(p), []byte("dev/")); ok {
			got = append(got, string(rest))
		}
	}
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Fatalf("out/dev holds %v, want %v", got, want)
	}
	for p, data := range files {
		path := filepath.Join(out, filepath.FromSlash(p))
		for _, i := range []int{0, len(data) - 1} {
			changed := bytes.Clone(data)
			changed[i] ^= 0x20
			os.WriteFile(path, changed, 0o644)
			var de *output.DiffersError
			if err := check(); !errors.As(err, &de) {
				t.Errorf("byte %d of %s changed: --check says %v", i, p, err)
			}
			os.WriteFile(path, data, 0o644)
		}
	}
	if err := check(); err != nil {
		t.Fatalf("restored: %v", err)
	}
}
