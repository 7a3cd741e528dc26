package action

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"github.com/karpgen/karpgen/internal/gitrev"
	"github.com/karpgen/karpgen/internal/load"
	"github.com/karpgen/karpgen/internal/util/escape"
)

// Base names the base of a diff: Any is a folder or a revision,
// whichever exists, and refused when it is both (as git refuses such a
// name); Rev and Dir say which.
type Base struct{ Any, Rev, Dir string }

// Named counts the names given, which must be one.
func (b Base) Named() int {
	n := 0
	for _, s := range []string{b.Any, b.Rev, b.Dir} {
		if s != "" {
			n++
		}
	}
	return n
}

// Open opens the base of the profiles folder dir. A revision is read
// from the object store of the repository around the profiles, never
// from a path the change under review controls; a revision without the
// profiles folder gives a folder without a file system (every
// environment is added). The label names the base in reports.
func (b Base) Open(dir string) (folder load.Folder, label string, closeFn func() error, err error) {
	flag, name := "--base", b.Any
	isDir, isRev := false, false
	var repo *gitrev.Repo
	var commit string
	switch {
	case b.Dir != "":
		flag, name, isDir = "--base-dir", b.Dir, true
	case b.Rev != "":
		flag, name, isRev = "--base-rev", b.Rev, true
	default:
		_, statErr := os.Lstat(name)
		isDir = statErr == nil
		if repo, err = gitrev.Find(dir); err == nil {
			commit, err = repo.Resolve(name)
			isRev = err == nil
		}
		switch {
		case isDir && isRev:
			return load.Folder{}, "", nil, usage("diff: --base %s names both a path and a git revision: say which with --base-rev or --base-dir", escape.Terminal(strconv.Quote(name)))
		case !isDir && !isRev:
			isRev = true // the revision's own error says why it is none
		}
	}
	if isDir {
		info, err := os.Stat(name)
		if err != nil || !info.IsDir() {
			return load.Folder{}, "", nil, usage("diff: %s: there is no folder %s", flag, escape.Terminal(name))
		}
		path := name
		if !filepath.IsAbs(dir) {
			if info, err := os.Stat(filepath.Join(name, dir)); err == nil && info.IsDir() {
				path = filepath.Join(name, dir)
			}
		}
		f, closeFn, err := load.Open(path)
		return f, path, closeFn, err
	}
	// A revision: found and resolved once (above for Any).
	var rev *gitrev.Folder
	if commit == "" {
		rev, err = gitrev.Open(dir, name)
	} else {
		rev, err = repo.Read(commit, name, gitrev.Limits{})
	}
	if err != nil {
		var bad *gitrev.NameError
		if errors.As(err, &bad) {
			return load.Folder{}, "", nil, usage("diff: %s: %v", flag, err)
		}
		return load.Folder{}, "", nil, fmt.Errorf("diff: %s: %w", flag, err)
	}
	label = name + ":" + rev.Path
	if rev.Empty {
		return load.Folder{}, label, func() error { return nil }, nil
	}
	return load.Folder{FS: rev.FS, Path: label}, label, func() error { return nil }, nil
}
