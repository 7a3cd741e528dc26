package output

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// LinkError names a symbolic link (or another entry that is not a plain
// folder or file) where karpgen reads or writes only real folders: out/,
// every folder below it, and profiles/overlays/<env>/. Following one
// would read host files into CI logs, copy them into out/, or write and
// delete outside the checkout.
type LinkError struct {
	Path string
	What string // "a symbolic link", "not a folder", ...
	// File: the entry stands where a file is read.
	File bool
}

func (e *LinkError) Error() string {
	if e.File {
		return fmt.Sprintf("%s is %s; karpgen reads only regular files here and follows no link: remove it", filepath.ToSlash(e.Path), e.What)
	}
	return fmt.Sprintf("%s is %s; karpgen reads and writes only real folders here and follows no link: replace it with a folder", filepath.ToSlash(e.Path), e.What)
}

// RealFolder checks that dir, when it exists, is a folder reached
// through no symbolic link: every component of a relative path, and the
// components of an absolute one below the working folder (the last one
// always). A missing dir is fine (it is created as a real folder); an
// existing component that is a link or not a folder is a *LinkError.
func RealFolder(dir string) error {
	clean := filepath.Clean(dir)
	var parts []string
	for p := clean; ; p = filepath.Dir(p) {
		parts = append(parts, p)
		if d := filepath.Dir(p); d == p || d == "." {
			break
		}
	}
	if filepath.IsAbs(clean) {
		wd, _ := os.Getwd()
		var under []string
		for i, p := range parts {
			if i == 0 || (wd != "" && strings.HasPrefix(p, wd+string(filepath.Separator))) {
				under = append(under, p)
			}
		}
		parts = under
	}
	for i := len(parts) - 1; i >= 0; i-- {
		p := parts[i]
		if p == "." || p == string(filepath.Separator) {
			continue
		}
		info, err := os.Lstat(p)
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		if err := isFolder(p, info); err != nil {
			return err
		}
	}
	return nil
}

// isFolder is nil for a real folder.
func isFolder(p string, info fs.FileInfo) error {
	switch {
	case info.Mode()&fs.ModeSymlink != 0:
		return &LinkError{Path: p, What: "a symbolic link"}
	case !info.IsDir():
		return &LinkError{Path: p, What: "not a folder"}
	}
	return nil
}

// kindOf names an entry that is neither a folder nor a regular file.
func kindOf(m fs.FileMode) string {
	switch {
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return "not a regular file"
}

// RealFolderBelow checks the components of rel (a relative path below
// base) as RealFolder does; base itself is taken as given.
func RealFolderBelow(base, rel string) error {
	p := base
	for _, part := range strings.Split(filepath.ToSlash(filepath.Clean(rel)), "/") {
		p = filepath.Join(p, part)
		info, err := os.Lstat(p)
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		if err := isFolder(p, info); err != nil {
			return err
		}
	}
	return nil
}
