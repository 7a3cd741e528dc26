package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/karpgen/karpgen/hack/internal/gosrc"
	"github.com/karpgen/karpgen/internal/facts"
	"github.com/karpgen/karpgen/internal/reference"
)

var header = regexp.MustCompile(`from (module (k8s\.io/kubelet)@(v[0-9.]+) zip h1:\S+); do not edit`)

// TestFieldsMatchSource: internal/kubelet/data is what this command makes
// of the k8s.io/kubelet zip its SOURCE names, byte for byte, and that is
// the version Karpenter's newest reference release builds against.
// `make test` fetches the zip from the module proxy.
func TestFieldsMatchSource(t *testing.T) {
	data := filepath.Join(reference.Root(), "internal", "kubelet", "data")
	source, err := os.ReadFile(filepath.Join(data, "SOURCE"))
	if err != nil {
		t.Fatal(err)
	}
	m := header.FindSubmatch(source)
	if m == nil {
		t.Fatalf("data/SOURCE names no module zip:\n%s", source)
	}
	newest := facts.Newest()
	gomod, err := os.ReadFile(filepath.Join(reference.Dir(t), newest.Reference, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`(?m)^\s+k8s\.io/kubelet ` + regexp.QuoteMeta(string(m[3])) + `$`).Match(gomod) {
		t.Errorf("Karpenter %s does not build against k8s.io/kubelet %s", newest.Reference, m[3])
	}
	zip, err := gosrc.ModuleZip(string(m[2]), string(m[3]))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(zip); err != nil {
		reference.Missing(t, "the module zip of k8s.io/kubelet %s is not downloaded (make module-zips): %v", m[3], err)
	}
	src, closeSrc, err := gosrc.Open(zip)
	if err != nil {
		t.Fatal(err)
	}
	defer closeSrc()
	files, err := Fields(src, string(m[1]))
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range files {
		got, err := os.ReadFile(filepath.Join(data, name))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("data/%s differs from what %s holds", name, zip)
		}
	}
}
