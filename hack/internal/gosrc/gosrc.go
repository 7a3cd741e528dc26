// Package gosrc opens an upstream release's Go source for the hack tools
// that derive tables from it: a source tree, or the module zip `go mod
// download` fetched (whose files sit under module@version/).
package gosrc

import (
	"archive/zip"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
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

// FromRecord opens, for a generator whose data folder (relative to the
// repository) is derived from the one module zip its SOURCE records, the
// paths of that tree, with the label that names it. With the zip not at
// hand it says the folder is kept, and ok is false.
func FromRecord(name, dataDir string, paths []string) (src fs.FS, label string, ok bool) {
	root, err := Root()
	if err != nil {
		fail(name, err)
	}
	record, err := os.ReadFile(filepath.Join(root, dataDir, "SOURCE"))
	if err != nil {
		fail(name, err)
	}
	u, found := Recorded(record)
	if !found {
		fail(name, fmt.Errorf("%s/SOURCE names no module zip", dataDir))
	}
	src, label, err = u.Read(paths)
	if errors.Is(err, ErrUnavailable) {
		fmt.Fprintf(os.Stderr, "%s: kept %s: %v\n", name, dataDir, err)
		return nil, "", false
	}
	if err != nil {
		fail(name, err)
	}
	return src, label, true
}

// WriteAll writes (or, under $KARPGEN_GENERATE_CHECK=1, checks) the files
// a generator derived into its data folder; an error in deriving or
// writing them ends the generator.
func WriteAll(name, dataDir string, files map[string][]byte, err error) {
	if err != nil {
		fail(name, err)
	}
	root, err := Root()
	if err != nil {
		fail(name, err)
	}
	for _, file := range slices.Sorted(maps.Keys(files)) {
		if err := Output(root, path.Join(dataDir, file), files[file]); err != nil {
			fail(name, err)
		}
	}
}

// WriteFile is WriteAll for a generator of one file, rel relative to the
// repository's root.
func WriteFile(name, rel string, data []byte, err error) {
	WriteAll(name, path.Dir(rel), map[string][]byte{path.Base(rel): data}, err)
}

// ModuleZip is where `go mod download` keeps a module version's zip.
func ModuleZip(module, version string) (string, error) {
	out, err := exec.Command("go", "env", "GOMODCACHE").Output()
	if err != nil {
		return "", err
	}
	return filepath.Join(strings.TrimSpace(string(out)), "cache", "download", module, "@v", version+".zip"), nil
}

func fail(name string, err error) {
	fmt.Fprintf(os.Stderr, "%s: %v\n", name, err)
	os.Exit(1)
}
