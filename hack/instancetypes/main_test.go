package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/karpgen/karpgen/hack/internal/gosrc"
	"github.com/karpgen/karpgen/internal/reference"
)

var header = regexp.MustCompile(`from (module (github\.com/aws/karpenter-provider-aws)@(v[0-9.]+) zip h1:\S+); do not edit`)

// TestTableMatchesSource: internal/instancetypes/data is what this
// command makes of the module zip its SOURCE names, byte for byte.
// `make test` fetches the zip from the module proxy.
func TestTableMatchesSource(t *testing.T) {
	data := filepath.Join(reference.Root(), "internal", "instancetypes", "data")
	source, err := os.ReadFile(filepath.Join(data, "SOURCE"))
	if err != nil {
		t.Fatal(err)
	}
	m := header.FindSubmatch(source)
	if m == nil {
		t.Fatalf("data/SOURCE names no module zip:\n%s", source)
	}
	zip, err := gosrc.ModuleZip(string(m[2]), string(m[3]))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(zip); err != nil {
		reference.Missing(t, "the module zip of %s is not downloaded (make module-zips): %v", m[3], err)
	}
	src, closeSrc, err := gosrc.Open(zip)
	if err != nil {
		t.Fatal(err)
	}
	defer closeSrc()
	files, err := Tables(src, string(m[1]))
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range files {
		got, err := os.ReadFile(filepath.Join(data, name))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("data/%s differs from what %s holds: run go run ./hack/instancetypes %s %q", name, zip, zip, m[1])
		}
	}
}
