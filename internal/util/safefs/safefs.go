// Package safefs reads trees that people other than the operator write
// (out/, an overlay folder, a captured state folder) without following
// them anywhere: every folder on the way is a real folder, every file a
// regular file read without following a link and within a size bound.
// Anything else is a *LinkError naming it.
package safefs

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// LinkError names a symbolic link (or another entry that is not a plain
// folder or file) where only real folders and regular files are read or
// written. Following one would read host files into CI logs, copy them
// into out/, or write and delete outside the checkout.
type LinkError struct {
	Path string
	What string // "a symbolic link", "a named pipe", ...
	// File: the entry stands where a file is read.
	File bool
}

func (e *LinkError) Error() string {
	if e.File {
		return fmt.Sprintf("%s is %s; karpgen reads only regular files here and follows no link: remove it", filepath.ToSlash(e.Path), e.What)
	}
	return fmt.Sprintf("%s is %s; karpgen reads and writes only real folders here and follows no link: replace it with a folder", filepath.ToSlash(e.Path), e.What)
}

// Kind names an entry that is not a regular file.
func Kind(m fs.FileMode) string {
	switch {
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	case m.IsDir():
		return "a folder"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return "not a regular file"
}

// RealFolder checks that dir, when it exists, is a folder reached
// through no symbolic link: every component of a relative path, and the
// components of an absolute one below the working folder (the last one
// always). A missing dir is fine (it is created as a real folder).
func RealFolder(dir string) error {
	clean := filepath.Clean(dir)
	var parts []string
	for p := clean; ; p = filepath.Dir(p) {
		parts = append(parts, p)
		if d := filepath.Dir(p); d == p || d == "." {
			break
		}
	}
	wd, _ := os.Getwd()
	var checked []string
	for i := len(parts) - 1; i >= 0; i-- {
		p := parts[i]
		if p == "." || p == string(filepath.Separator) {
			continue
		}
		if filepath.IsAbs(clean) && i > 0 && (wd == "" || !strings.HasPrefix(p, wd+string(filepath.Separator))) {
			continue
		}
		checked = append(checked, p)
	}
	return folders(checked)
}

// RealFolderBelow checks the components of rel (a relative path below
// base) as RealFolder does; base itself is taken as given.
func RealFolderBelow(base, rel string) error {
	var checked []string
	p := base
	for _, part := range strings.Split(filepath.ToSlash(filepath.Clean(rel)), "/") {
		p = filepath.Join(p, part)
		checked = append(checked, p)
	}
	return folders(checked)
}

// folders checks paths, outermost first, up to the first that does not
// exist.
func folders(paths []string) error {
	for _, p := range paths {
		info, err := os.Lstat(p)
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		switch {
		case info.Mode()&fs.ModeSymlink != 0:
			return &LinkError{Path: p, What: "a symbolic link"}
		case !info.IsDir():
			return &LinkError{Path: p, What: "not a folder"}
		}
	}
	return nil
}

// ReadFile reads a regular file of at most max bytes: one that is a link,
// a pipe or a device, or swapped for one between the look and the read,
// is a *LinkError; a larger one is refused unread.
func ReadFile(path string, max int64) ([]byte, error) {
	if info, err := os.Lstat(path); err == nil && !info.Mode().IsRegular() {
		return nil, &LinkError{Path: path, What: Kind(info.Mode()), File: true}
	}
	f, err := os.OpenFile(path, os.O_RDONLY|noFollow, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readOpen(f, path, max)
}

// ReadFS reads a regular file of an fs.FS (an os.Root's, say) as
// ReadFile does.
func ReadFS(fsys fs.FS, name string, max int64) ([]byte, error) {
	info, err := fs.Lstat(fsys, name)
	if err != nil {
		return nil, err
	}
	if !info.Mode().IsRegular() {
		return nil, &LinkError{Path: name, What: Kind(info.Mode()), File: true}
	}
	f, err := fsys.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readOpen(f, name, max)
}

func readOpen(f fs.File, path string, max int64) ([]byte, error) {
	info, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !info.Mode().IsRegular() {
		return nil, &LinkError{Path: path, What: Kind(info.Mode()), File: true}
	}
	if info.Size() > max {
		return nil, &SizeError{Path: path, Size: info.Size(), Max: max}
	}
	// Room for what Stat says, and a byte more to see the end: a file
	// of out/ is read in two calls, not in doubling chunks. A file that
	// grew since is still read whole, up to max.
	data := make([]byte, 0, info.Size()+1)
	r := io.LimitReader(f, max+1)
	for {
		if len(data) == cap(data) {
			data = append(data, 0)[:len(data)]
		}
		n, err := r.Read(data[len(data):cap(data)])
		data = data[:len(data)+n]
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
	}
	if int64(len(data)) > max {
		return nil, &SizeError{Path: path, Size: int64(len(data)), Max: max}
	}
	return data, nil
}

// SizeError names a file larger than what is read of it.
type SizeError struct {
	Path      string
	Size, Max int64
}

func (e *SizeError) Error() string {
	return fmt.Sprintf("%s is %d bytes, more than karpgen reads there (%d): not read", filepath.ToSlash(e.Path), e.Size, e.Max)
}
