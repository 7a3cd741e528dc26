// Package gitrev reads a folder of a git repository as it is at a
// revision, into memory, through git's plumbing (rev-parse, ls-tree,
// cat-file): nothing of the work tree, the index or HEAD changes.
package gitrev

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"os/exec"
	"path"
	"strconv"
	"strings"
	"testing/fstest"
)

// Folder is a folder of a repository at a revision.
type Folder struct {
	// FS holds its files; it is empty when the revision has no such
	// folder.
	FS fs.FS
	// Commit is the full hash the revision names; Path is where the
	// folder sits in the repository.
	Commit, Path string
	// Empty says the revision has no file in the folder (it did not
	// exist yet).
	Empty bool
}

// MaxBytes bounds what a revision's folder may hold in memory.
const MaxBytes = 256 << 20

// Open reads dir (a folder inside a git work tree) as it is at rev.
// Links and submodules in it are refused: a revision's files are
// untrusted, and a link could lead anywhere once followed.
func Open(dir, rev string) (*Folder, error) {
	if rev == "" || strings.HasPrefix(rev, "-") || strings.ContainsAny(rev, "\x00\n") {
		return nil, fmt.Errorf("%q is not a git revision", rev)
	}
	top, err := git(dir, nil, "rev-parse", "--show-toplevel")
	if err != nil {
		return nil, fmt.Errorf("%s is not inside a git work tree: %w", dir, err)
	}
	prefix, err := git(dir, nil, "rev-parse", "--show-prefix")
	if err != nil {
		return nil, err
	}
	commit, err := git(dir, nil, "rev-parse", "--verify", "--quiet", "--end-of-options", rev+"^{commit}")
	if err != nil {
		return nil, fmt.Errorf("git revision %q: no such commit in %s", rev, strings.TrimSpace(string(top)))
	}
	f := &Folder{Commit: strings.TrimSpace(string(commit)), Path: strings.TrimSuffix(strings.TrimSpace(string(prefix)), "/")}
	args := []string{"ls-tree", "-r", "-z", "--full-tree", f.Commit}
	if f.Path != "" {
		args = append(args, "--", f.Path+"/")
	}
	list, err := git(strings.TrimSpace(string(top)), nil, args...)
	if err != nil {
		return nil, err
	}
	type entry struct{ name, hash string }
	var blobs []entry
	for _, rec := range strings.Split(strings.TrimSuffix(string(list), "\x00"), "\x00") {
		if rec == "" {
			continue
		}
		meta, name, ok := strings.Cut(rec, "\t")
		fields := strings.Fields(meta)
		if !ok || len(fields) != 3 {
			return nil, fmt.Errorf("git ls-tree: unexpected line %q", rec)
		}
		rel := strings.TrimPrefix(name, f.Path+"/")
		if f.Path == "" {
			rel = name
		}
		switch fields[0] {
		case "100644", "100755":
			blobs = append(blobs, entry{rel, fields[2]})
		case "120000":
			return nil, fmt.Errorf("%s at %s is a symbolic link: karpgen follows no links of a revision", path.Join(f.Path, rel), rev)
		default:
			return nil, fmt.Errorf("%s at %s is a %s (mode %s), not a file", path.Join(f.Path, rel), rev, fields[1], fields[0])
		}
	}
	files := fstest.MapFS{}
	if len(blobs) > 0 {
		var in bytes.Buffer
		for _, b := range blobs {
			in.WriteString(b.hash + "\n")
		}
		out, err := git(dir, &in, "cat-file", "--batch")
		if err != nil {
			return nil, err
		}
		r := bufio.NewReader(bytes.NewReader(out))
		total := 0
		for _, b := range blobs {
			header, err := r.ReadString('\n')
			if err != nil {
				return nil, fmt.Errorf("git cat-file: %w", err)
			}
			h := strings.Fields(header)
			if len(h) != 3 || h[0] != b.hash || h[1] != "blob" {
				return nil, fmt.Errorf("git cat-file: unexpected header %q for %s", header, b.name)
			}
			size, err := strconv.Atoi(h[2])
			if err != nil {
				return nil, err
			}
			if total += size; total > MaxBytes {
				return nil, fmt.Errorf("%s at %s holds more than %d MiB", f.Path, rev, MaxBytes>>20)
			}
			data := make([]byte, size+1)
			if _, err := io.ReadFull(r, data); err != nil {
				return nil, fmt.Errorf("git cat-file: %w", err)
			}
			files[b.name] = &fstest.MapFile{Data: data[:size], Mode: 0o444}
		}
	}
	f.FS, f.Empty = files, len(files) == 0
	return f, nil
}

// git runs git in dir with its own configuration only (no pager, no
// prompts) and returns what it prints.
func git(dir string, stdin io.Reader, args ...string) ([]byte, error) {
	cmd := exec.Command("git", append([]string{"-C", dir, "--no-pager", "-c", "core.quotePath=false"}, args...)...)
	cmd.Stdin = stdin
	cmd.Env = append(cmd.Environ(), "GIT_TERMINAL_PROMPT=0", "GIT_OPTIONAL_LOCKS=0")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		if msg := strings.TrimSpace(stderr.String()); msg != "" {
			return nil, fmt.Errorf("git %s: %s", args[0], msg)
		}
		return nil, fmt.Errorf("git %s: %w", args[0], err)
	}
	return out, nil
}
