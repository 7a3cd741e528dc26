// Package output writes rendered bundles to out/<env>/ and compares them
// with what is there. Writing is atomic per environment: a bundle is
// written to a temporary folder beside its target and renamed into place,
// so an interrupted render leaves the old bundle or the new one, never a mix.
package output

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/karpgen/karpgen/generators"
)

const tmpPrefix = ".karpgen-"

// FleetFiles are the names of the files karpgen owns in out/ itself.
var FleetFiles = []string{generators.ApplicationSetFile}

// Prepare creates outDir and removes what an interrupted render left.
func Prepare(outDir string) error {
	if err := os.MkdirAll(outDir, 0o755); err != nil {
		return fmt.Errorf("creating %s: %w", outDir, err)
	}
	removeLeftovers(outDir)
	return nil
}

// WriteBundle puts a bundle under outDir/<env>/, replacing what was
// there; a folder that already holds exactly the bundle is left alone.
// It reports whether the folder changed.
func WriteBundle(outDir string, b *generators.Bundle) (bool, error) {
	target := filepath.Join(outDir, b.Env)
	same, err := equalOnDisk(target, b)
	if err != nil || same {
		return false, err
	}
	if err := replace(outDir, target, b); err != nil {
		return false, fmt.Errorf("writing %s: %w", target, err)
	}
	return true, nil
}

// WriteFleet writes the files of outDir itself and removes those karpgen
// owns but no longer makes. It returns the names that changed.
func WriteFleet(outDir string, fleet map[string][]byte) ([]string, error) {
	var changed []string
	for _, name := range FleetFiles {
		target := filepath.Join(outDir, name)
		have, err := os.ReadFile(target)
		data, want := fleet[name]
		switch {
		case !want && err == nil:
			if err := os.Remove(target); err != nil {
				return changed, err
			}
			changed = append(changed, name)
		case want && (err != nil || !bytes.Equal(have, data)):
			if err := writeFileAtomic(outDir, target, data); err != nil {
				return changed, fmt.Errorf("writing %s: %w", target, err)
			}
			changed = append(changed, name)
		}
	}
	return changed, nil
}

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

func replace(outDir, target string, b *generators.Bundle) error {
	tmp, err := os.MkdirTemp(outDir, tmpPrefix+b.Env+"-new-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	for _, p := range b.Paths() {
		full := filepath.Join(tmp, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(full, b.Files[p], 0o644); err != nil {
			return err
		}
	}
	if err := os.Chmod(tmp, 0o755); err != nil {
		return err
	}
	old := ""
	if _, err := os.Lstat(target); err == nil {
		old = filepath.Join(outDir, tmpPrefix+b.Env+"-old")
		os.RemoveAll(old)
		if err := os.Rename(target, old); err != nil {
			return err
		}
	}
	if err := os.Rename(tmp, target); err != nil {
		if old != "" {
			os.Rename(old, target) // put the previous bundle back
		}
		return err
	}
	if old != "" {
		return os.RemoveAll(old)
	}
	return nil
}

// removeLeftovers drops temporary folders an interrupted render left.
func removeLeftovers(outDir string) {
	entries, _ := os.ReadDir(outDir)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), tmpPrefix) {
			os.RemoveAll(filepath.Join(outDir, e.Name()))
		}
	}
}

// ReadDir returns the files under dir by slash path; a missing dir is empty.
func ReadDir(dir string) (map[string][]byte, error) {
	files := map[string][]byte{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if os.IsNotExist(err) && path == dir {
				return fs.SkipAll
			}
			return err
		}
		if d.IsDir() {
			return nil
		}
		rel, err := filepath.Rel(dir, path)
		if err != nil {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		files[filepath.ToSlash(rel)] = data
		return nil
	})
	return files, err
}

func equalOnDisk(dir string, b *generators.Bundle) (bool, error) {
	have, err := ReadDir(dir)
	if err != nil {
		return false, err
	}
	if len(have) != len(b.Files) {
		return false, nil
	}
	for p, data := range b.Files {
		if !bytes.Equal(have[p], data) {
			return false, nil
		}
	}
	return true, nil
}

// Strays lists folders in outDir that belong to no environment in envs
// (karpgen's own temporary folders aside).
func Strays(outDir string, envs []string) []string {
	entries, err := os.ReadDir(outDir)
	if err != nil {
		return nil
	}
	known := map[string]bool{}
	for _, e := range envs {
		known[e] = true
	}
	var out []string
	for _, e := range entries {
		if e.IsDir() && !known[e.Name()] && !strings.HasPrefix(e.Name(), tmpPrefix) {
			out = append(out, e.Name())
		}
	}
	return out
}

// WriteNew writes files (slash paths under dir) that must not exist yet,
// as `init` and `import` do: when any of them exists nothing is written.
// Each file is written to a temporary file and renamed into place. It
// returns the paths written, in order.
func WriteNew(dir string, files map[string][]byte) ([]string, error) {
	paths := make([]string, 0, len(files))
	for p := range files {
		paths = append(paths, p)
	}
	slices.Sort(paths)
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
