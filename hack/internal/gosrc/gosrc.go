// Package gosrc opens an upstream release's Go source for the hack tools
// that derive tables from it: a source tree, or the module zip `go mod
// download` fetched (whose files sit under module@version/).
package gosrc

import (
	"archive/zip"
	"fmt"
	"io/fs"
	"os"
	"path"
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
