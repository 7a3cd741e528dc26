// Package gosrc opens an upstream release's Go source for the hack tools
// that derive tables from it: a source tree, or the module zip `go mod
// download` fetched (whose files sit under module@version/).
package gosrc

import (
	"archive/zip"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
)

// Open returns the tree rooted where go.mod is, and a function that
// closes it.
func Open(name string) (fs.FS, func(), error) {
	if !strings.HasSuffix(name, ".zip") {
		return os.DirFS(name), func() {}, nil
	}
	z, err := zip.OpenReader(name)
	if err != nil {
		return nil, nil, err
	}
	// The module path has several elements: descend to the folder that
	// holds go.mod.
	root := "."
	for {
		if _, err := fs.Stat(z, path.Join(root, "go.mod")); err == nil {
			break
		}
		sub, err := fs.ReadDir(z, root)
		if err != nil || len(sub) != 1 || !sub[0].IsDir() {
			z.Close()
			return nil, nil, fmt.Errorf("%s: not a module zip (no go.mod)", name)
		}
		root = path.Join(root, sub[0].Name())
	}
	sub, err := fs.Sub(z, root)
	if err != nil {
		z.Close()
		return nil, nil, err
	}
	return sub, func() { z.Close() }, nil
}

// Args opens the release source of a tool that derives data files from
// it, `go run ./hack/NAME SOURCE LABEL`, and returns it with its label
// and what closes it. A wrong command line or a source that cannot be
// opened ends the tool.
func Args(name string) (src fs.FS, label string, closeSrc func()) {
	if len(os.Args) != 3 {
		fmt.Fprintf(os.Stderr, "usage: go run ./hack/%s SOURCE LABEL\n", name)
		os.Exit(2)
	}
	src, closeSrc, err := Open(os.Args[1])
	if err != nil {
		fail(name, err)
	}
	return src, os.Args[2], closeSrc
}

// Write writes the files a tool derived into outDir; an error in deriving
// them or in writing them ends the tool.
func Write(name, outDir string, files map[string][]byte, err error) {
	if err != nil {
		fail(name, err)
	}
	for file, data := range files {
		if err := os.WriteFile(filepath.Join(outDir, file), data, 0o644); err != nil {
			fail(name, err)
		}
	}
}

func fail(name string, err error) {
	fmt.Fprintf(os.Stderr, "%s: %v\n", name, err)
	os.Exit(1)
}

// ModuleZip is where `go mod download` keeps a module version's zip.
func ModuleZip(module, version string) (string, error) {
	out, err := exec.Command("go", "env", "GOMODCACHE").Output()
	if err != nil {
		return "", err
	}
	return filepath.Join(strings.TrimSpace(string(out)), "cache", "download", module, "@v", version+".zip"), nil
}
