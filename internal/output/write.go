// Package output is where rendered bundles leave memory: written to
// out/<env>/ (Disk), compared with what is there (Check), or built with
// kustomize (Build). out/ belongs to karpgen only as far as karpgen wrote
// it: each environment's folder lists the files karpgen wrote in its
// manifest, and a file karpgen did not write is never deleted.
//
// Writing is checked first and done last: every bundle is staged in a
// temporary folder beside its target while nothing in out/ changes; only
// when every environment is staged, and what they replace is known to be
// removable, are the folders swapped in, under a journal (swap.go): if a
// swap fails the folders already swapped are put back, and if the render
// is killed the next one puts them back. A lock keeps two renders out of
// one out/ at a time.
package output

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/karpgen/karpgen/generators"
	"github.com/karpgen/karpgen/internal/model"
	"github.com/karpgen/karpgen/internal/util/lazyre"
	"github.com/karpgen/karpgen/internal/util/safefs"
)

const (
	// tmpPrefix starts the names of karpgen's temporary entries in out/.
	tmpPrefix = ".karpgen-"
	// ManifestFile, in each environment's folder, lists the files karpgen
	// wrote there.
	ManifestFile = ".karpgen-files"
	manifestHead = "# Files karpgen wrote for this environment; karpgen render replaces only these.\n"
)

// FleetFiles are the names of the files karpgen owns in out/ itself.
var FleetFiles = []string{generators.ApplicationSetFile}

// WithManifest returns the files of a bundle as karpgen writes them: the
// bundle's files and its manifest.
func WithManifest(b *model.Bundle) map[string][]byte {
	files := make(map[string][]byte, len(b.Files)+1)
	var m strings.Builder
	m.WriteString(manifestHead)
	for _, p := range b.Paths() {
		files[p] = b.Files[p]
		m.WriteString(p + "\n")
	}
	files[ManifestFile] = []byte(m.String())
	return files
}

// readManifest returns the files the manifest in dir lists; ok is false
// when dir has no manifest.
func readManifest(dir string) (map[string]bool, bool) {
	data, err := safefs.ReadFile(filepath.Join(dir, ManifestFile), maxOutFile)
	if err != nil {
		return nil, false
	}
	out := map[string]bool{ManifestFile: true}
	for _, line := range strings.Split(string(data), "\n") {
		if line != "" && !strings.HasPrefix(line, "#") {
			out[line] = true
		}
	}
	return out, true
}

// Owned reports whether dir is a folder karpgen wrote (it holds a manifest).
func Owned(dir string) bool {
	_, ok := readManifest(dir)
	return ok
}

// ForeignError names files in an environment's folder that karpgen did
// not write and would have to delete.
type ForeignError struct {
	Dir   string
	Files []string
}

func (e *ForeignError) Error() string {
	shown := make([]string, len(e.Files))
	for i, f := range e.Files {
		shown[i] = filepath.ToSlash(filepath.Join(e.Dir, f))
	}
	return fmt.Sprintf("%s holds %s, which karpgen did not write; move it out of the way, or pass --delete-foreign to let karpgen delete it",
		filepath.ToSlash(e.Dir), strings.Join(shown, ", "))
}

// stage compares a bundle with its folder under outDir and, when they
// differ, writes the bundle into a new temporary folder beside it. It
// returns the staged folder ("" when the folder is current). Files in the
// folder that karpgen did not write are refused unless deleteForeign.
// The upgrade plans in the folder are made again by replan and staged
// with the bundle.
func stage(outDir string, b *model.Bundle, deleteForeign bool, replan Replanner) (string, error) {
	target := filepath.Join(outDir, b.Env)
	have, err := ReadDir(target)
	if err != nil {
		return "", err
	}
	want := WithManifest(b)
	plans, err := planFiles(outDir, b.Env, have, replan)
	if err != nil {
		return "", err
	}
	maps.Copy(want, plans)
	if !deleteForeign {
		owned, _ := readManifest(target)
		var foreign []string
		for p := range have {
			if _, ok := want[p]; !ok && !owned[p] {
				foreign = append(foreign, p)
			}
		}
		if len(foreign) > 0 {
			slices.Sort(foreign)
			return "", &ForeignError{Dir: target, Files: foreign}
		}
	}
	if sameFiles(have, want) {
		return "", nil
	}
	tmp, err := os.MkdirTemp(outDir, tmpPrefix+strings.ReplaceAll(b.Env, "/", "_")+"-")
	if err != nil {
		return "", fmt.Errorf("writing %s: %w", filepath.ToSlash(target), err)
	}
	if err := writeTree(tmp, want); err != nil {
		os.RemoveAll(tmp)
		return "", fmt.Errorf("writing %s: %w", filepath.ToSlash(target), err)
	}
	return tmp, nil
}

func writeTree(dir string, files map[string][]byte) error {
	for p, data := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(full, data, 0o644); err != nil {
			return err
		}
	}
	return os.Chmod(dir, 0o755)
}

// writeFileAtomic writes data to a temporary file in dir and renames it
// to target.
func writeFileAtomic(dir, target string, data []byte) error {
	f, err := os.CreateTemp(dir, tmpPrefix+"file-")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Chmod(0o644); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), target)
}

// ReadDir returns the files under dir by slash path; a missing dir is
// empty. dir and every folder below it must be real folders and every
// file a regular file: a symbolic link, a pipe or a device anywhere is a
// *LinkError naming it, and nothing is read through it.
func ReadDir(dir string) (map[string][]byte, error) {
	files := map[string][]byte{}
	if err := safefs.RealFolder(dir); err != nil {
		return nil, err
	}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) && path == dir {
				return fs.SkipAll
			}
			return err
		}
		if d.IsDir() {
			return nil
		}
		if !d.Type().IsRegular() {
			return &safefs.LinkError{Path: path, What: safefs.Kind(d.Type()), File: true}
		}
		rel, err := filepath.Rel(dir, path)
		if err != nil {
			return err
		}
		data, err := safefs.ReadFile(path, maxOutFile)
		if err != nil {
			return err
		}
		files[filepath.ToSlash(rel)] = data
		return nil
	})
	return files, err
}

// readFleet reads the files of out/ itself that karpgen owns and that
// exist, as real files of a real folder.
func readFleet(outDir string) (map[string][]byte, error) {
	if err := safefs.RealFolder(outDir); err != nil {
		return nil, err
	}
	have := map[string][]byte{}
	for _, name := range FleetFiles {
		p := filepath.Join(outDir, name)
		if !exists(p) {
			continue
		}
		data, err := safefs.ReadFile(p, maxOutFile)
		if err != nil {
			return nil, err
		}
		have[name] = data
	}
	return have, nil
}

// maxOutFile bounds a file read back from out/: karpgen writes none
// larger, and a huge one is not read whole.
const maxOutFile = 64 << 20

func sameFiles(have, want map[string][]byte) bool {
	if len(have) != len(want) {
		return false
	}
	for p, data := range want {
		if h, ok := have[p]; !ok || !bytes.Equal(h, data) {
			return false
		}
	}
	return true
}

// Strays lists folders in outDir that belong to no environment in envs
// (karpgen's own temporary entries aside), and says which of them karpgen
// wrote.
func Strays(outDir string, envs []string) (owned, other []string) {
	entries, err := os.ReadDir(outDir)
	if err != nil {
		return nil, nil
	}
	for _, e := range entries {
		if !e.IsDir() || slices.Contains(envs, e.Name()) || strings.HasPrefix(e.Name(), tmpPrefix) {
			continue
		}
		if Owned(filepath.Join(outDir, e.Name())) {
			owned = append(owned, e.Name())
		} else {
			other = append(other, e.Name())
		}
	}
	return owned, other
}

// WriteNew writes files (slash paths under dir) that must not exist yet,
// as `init` and `import` do: when any of them exists nothing is written.
// Each file is written to a temporary file and renamed into place. It
// returns the paths written, in order.
func WriteNew(dir string, files map[string][]byte) ([]string, error) {
	paths := slices.Sorted(maps.Keys(files))
	for _, p := range paths {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if _, err := os.Lstat(full); err == nil {
			return nil, fmt.Errorf("%s exists; karpgen never overwrites it", full)
		}
	}
	var written []string
	for _, p := range paths {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			return written, err
		}
		if err := writeFileAtomic(filepath.Dir(full), full, files[p]); err != nil {
			return written, fmt.Errorf("writing %s: %w", full, err)
		}
		written = append(written, full)
	}
	return written, nil
}

// escapedRE is how os.Root refuses a path that leaves it.
var escapedRE = lazyre.New(`([^: ]+): path escapes from parent`)

// escaped returns the name of a file os.Root refused to read.
func escaped(msg string) (string, bool) {
	m := escapedRE().FindStringSubmatch(msg)
	if m == nil {
		return "", false
	}
	return m[1], true
}
