// Package gosrctest holds a derived data folder to the module zip its
// SOURCE names, for the tests of the hack tools (and only them).
package gosrctest

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/karpgen/karpgen/hack/internal/gosrc"
	"github.com/karpgen/karpgen/internal/oracle"
)

// header finds "from module M@V zip h1:...; do not edit" in a SOURCE.
var header = regexp.MustCompile(`from (module ([^@ ]+)@(v[0-9.]+) zip h1:\S+); do not edit`)

// HoldToZip checks that dir (relative to the repository) is what derive
// makes of the zip its SOURCE names, byte for byte, and returns the
// module version. A zip that is not downloaded is Missing.
func HoldToZip(t *testing.T, dir, tool string, derive func(fs.FS, string) (map[string][]byte, error)) (module, version string) {
	t.Helper()
	data := filepath.Join(oracle.Root(), dir)
	source, err := os.ReadFile(filepath.Join(data, "SOURCE"))
	if err != nil {
		t.Fatal(err)
	}
	m := header.FindSubmatch(source)
	if m == nil {
		t.Fatalf("%s/SOURCE names no module zip:\n%s", dir, source)
	}
	zip, err := gosrc.ModuleZip(string(m[2]), string(m[3]))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(zip); err != nil {
		oracle.Missing(t, "the module zip of %s %s is not downloaded (make module-zips): %v", m[2], m[3], err)
	}
	src, closeSrc, err := gosrc.Open(zip)
	if err != nil {
		t.Fatal(err)
	}
	defer closeSrc()
	files, err := derive(src, string(m[1]))
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range files {
		got, err := os.ReadFile(filepath.Join(data, name))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s/%s differs from what %s holds (%s): run make generate", dir, name, zip, tool)
		}
	}
	return string(m[2]), string(m[3])
}
