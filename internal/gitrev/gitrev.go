// Package gitrev reads a folder of a git repository as it is at a
// revision, into memory, through git's plumbing (rev-parse, ls-tree,
// cat-file): nothing of the work tree, the index or HEAD changes.
//
// Everything below the work tree may come from the change under review,
// so nothing there decides where the repository is: the repository is
// the nearest folder at or above the profiles holding a `.git` (which no
// commit can contain), handed to git explicitly, and a bare repository
// committed into the tree is never taken for it. The revision's size is
// known from its tree before any of its blobs is read, and the blobs are
// streamed, so no revision holds more than the limits in memory.
package gitrev

import (
	"bufio"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
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

// MaxBytes bounds what a revision's folder may hold in memory, counting
// a blob once for every name it has; MaxFiles bounds its number of
// files.
const (
	MaxBytes = 256 << 20
	MaxFiles = 20000
)

// Limits bound a revision's folder; the zero value means MaxBytes and
// MaxFiles.
type Limits struct{ Bytes, Files int64 }

func (l Limits) orDefault() Limits {
	if l.Bytes <= 0 {
		l.Bytes = MaxBytes
	}
	if l.Files <= 0 {
		l.Files = MaxFiles
	}
	return l
}

// NameError says a name given for a folder or a revision names none: a
// mistake of whoever gave it, where every other error of this package
// is a failure to read what it names.
type NameError struct{ msg string }

func (e *NameError) Error() string { return e.msg }

func nameErr(format string, args ...any) error {
	return &NameError{fmt.Sprintf(format, args...)}
}

// Repo is the git repository around a folder.
type Repo struct {
	// Top is its work tree; GitDir the `.git` entry found there (a
	// folder, or a file naming one, as for a linked work tree).
	Top, GitDir string
	// Prefix is the folder's path inside the work tree ("" at the top).
	Prefix string
}

// Find returns the repository of the work tree around dir: the nearest
// folder at or above dir that holds an entry named `.git`. A bare
// repository (a HEAD, objects/ and refs/ with no `.git`) is never taken
// for one, wherever it lies, since a commit can hold those files but no
// commit can hold a `.git`.
func Find(dir string) (*Repo, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	if info, err := os.Stat(abs); err != nil || !info.IsDir() {
		return nil, nameErr("there is no folder %s", dir)
	}
	for d := abs; ; {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			rel, err := filepath.Rel(d, abs)
			if err != nil {
				return nil, err
			}
			prefix := filepath.ToSlash(rel)
			if prefix == "." {
				prefix = ""
			}
			return &Repo{Top: d, GitDir: filepath.Join(d, ".git"), Prefix: prefix}, nil
		}
		parent := filepath.Dir(d)
		if parent == d {
			return nil, nameErr("%s is not inside a git work tree", dir)
		}
		d = parent
	}
}

// Resolve returns the full hash of the commit rev names, or an error
// when it names none.
func (r *Repo) Resolve(rev string) (string, error) {
	if err := checkRev(rev); err != nil {
		return "", err
	}
	commit, err := r.git(nil, "rev-parse", "--verify", "--quiet", "--end-of-options", rev+"^{commit}")
	if err != nil {
		return "", nameErr("git revision %q: no such commit in %s", rev, r.Top)
	}
	return strings.TrimSpace(string(commit)), nil
}

func checkRev(rev string) error {
	if rev == "" || strings.HasPrefix(rev, "-") || strings.ContainsAny(rev, "\x00\n") {
		return nameErr("%q is not a git revision", rev)
	}
	return nil
}

// Open reads dir (a folder inside a git work tree) as it is at rev,
// within the default limits.
func Open(dir, rev string) (*Folder, error) {
	return OpenLimited(dir, rev, Limits{})
}

// OpenLimited reads dir as it is at rev. Links and submodules in it are
// refused: a revision's files are untrusted, and a link could lead
// anywhere once followed. A folder over the limits is refused before any
// of its files is read.
func OpenLimited(dir, rev string, lim Limits) (*Folder, error) {
	if err := checkRev(rev); err != nil {
		return nil, err
	}
	r, err := Find(dir)
	if err != nil {
		return nil, err
	}
	commit, err := r.Resolve(rev)
	if err != nil {
		return nil, err
	}
	return r.Read(commit, rev, lim)
}

// Read reads the folder at a commit Resolve gave for rev (rev names it in
// messages), within the limits.
func (r *Repo) Read(commit, rev string, lim Limits) (*Folder, error) {
	return r.read(commit, rev, lim.orDefault())
}

type blob struct {
	name, hash string
	size       int64
}

func (r *Repo) read(commit, rev string, lim Limits) (*Folder, error) {
	f := &Folder{Commit: commit, Path: r.Prefix}
	args := []string{"ls-tree", "-r", "-l", "-z", "--full-tree", commit}
	if f.Path != "" {
		args = append(args, "--", f.Path+"/")
	}
	var blobs []blob
	var total int64
	err := r.stream(nil, func(out *bufio.Reader) error {
		for {
			rec, err := out.ReadString(0)
			if err == io.EOF && rec == "" {
				return nil
			}
			if err != nil && err != io.EOF {
				return err
			}
			b, err := f.entry(strings.TrimSuffix(rec, "\x00"), rev)
			if err != nil {
				return err
			}
			if int64(len(blobs)) >= lim.Files {
				return fmt.Errorf("%s at %s holds more than %d files", f.where(), rev, lim.Files)
			}
			if total += b.size; total > lim.Bytes {
				return fmt.Errorf("%s at %s holds more than %d MiB", f.where(), rev, lim.Bytes>>20)
			}
			blobs = append(blobs, b)
		}
	}, args...)
	if err != nil {
		return nil, err
	}
	files := fstest.MapFS{}
	if len(blobs) > 0 {
		if err := r.cat(blobs, total, files); err != nil {
			return nil, err
		}
	}
	f.FS, f.Empty = files, len(files) == 0
	return f, nil
}

func (f *Folder) where() string {
	if f.Path == "" {
		return "the repository"
	}
	return f.Path
}

// entry reads one record of `ls-tree -r -l -z`: "MODE TYPE HASH SIZE\tNAME".
func (f *Folder) entry(rec, rev string) (blob, error) {
	meta, name, ok := strings.Cut(rec, "\t")
	fields := strings.Fields(meta)
	if !ok || len(fields) != 4 {
		return blob{}, fmt.Errorf("git ls-tree: unexpected line %q", rec)
	}
	rel := name
	if f.Path != "" {
		rel = strings.TrimPrefix(name, f.Path+"/")
	}
	switch fields[0] {
	case "100644", "100755":
	case "120000":
		return blob{}, fmt.Errorf("%s at %s is a symbolic link: karpgen follows no links of a revision", path.Join(f.Path, rel), rev)
	default:
		return blob{}, fmt.Errorf("%s at %s is a %s (mode %s), not a file", path.Join(f.Path, rel), rev, fields[1], fields[0])
	}
	size, err := strconv.ParseInt(fields[3], 10, 64)
	if err != nil || size < 0 {
		return blob{}, fmt.Errorf("git ls-tree: unexpected size in %q", rec)
	}
	return blob{rel, fields[2], size}, nil
}

// cat reads the blobs, each hash once, streaming `cat-file --batch` and
// holding no more than the sizes the tree gave.
func (r *Repo) cat(blobs []blob, total int64, files fstest.MapFS) error {
	seen := map[string][]byte{}
	var in strings.Builder
	var order []blob
	for _, b := range blobs {
		if _, ok := seen[b.hash]; !ok {
			seen[b.hash] = nil
			order = append(order, b)
			in.WriteString(b.hash + "\n")
		}
	}
	err := r.stream(strings.NewReader(in.String()), func(out *bufio.Reader) error {
		for _, b := range order {
			header, err := out.ReadString('\n')
			if err != nil {
				return fmt.Errorf("git cat-file: %w", err)
			}
			h := strings.Fields(header)
			if len(h) != 3 || h[0] != b.hash || h[1] != "blob" || h[2] != strconv.FormatInt(b.size, 10) {
				return fmt.Errorf("git cat-file: unexpected header %q for %s", header, b.name)
			}
			data := make([]byte, b.size+1)
			if _, err := io.ReadFull(out, data); err != nil {
				return fmt.Errorf("git cat-file: %w", err)
			}
			seen[b.hash] = data[:b.size]
		}
		return nil
	}, "cat-file", "--batch")
	if err != nil {
		return err
	}
	for _, b := range blobs {
		files[b.name] = &fstest.MapFile{Data: seen[b.hash], Mode: 0o444}
	}
	return nil
}

// git runs git on the repository and returns what it prints (small
// answers only).
func (r *Repo) git(stdin io.Reader, args ...string) ([]byte, error) {
	var out []byte
	err := r.stream(stdin, func(o *bufio.Reader) error {
		b, err := io.ReadAll(io.LimitReader(o, 1<<16))
		out = b
		return err
	}, args...)
	return out, err
}

// stream runs git on the repository, named explicitly so that git
// discovers nothing, with its own configuration only (no pager, no
// prompts, no bare repository found on its own), and hands what it
// prints to read as it comes. When read fails, git is stopped.
func (r *Repo) stream(stdin io.Reader, read func(*bufio.Reader) error, args ...string) error {
	base := []string{"--git-dir=" + r.GitDir, "--work-tree=" + r.Top, "--no-pager",
		"-c", "core.quotePath=false", "-c", "safe.bareRepository=explicit", "-c", "core.fsmonitor=false"}
	cmd := exec.Command("git", append(base, args...)...)
	cmd.Dir = r.Top
	cmd.Stdin = stdin
	cmd.Env = append(cleanEnv(cmd.Environ()), "GIT_TERMINAL_PROMPT=0", "GIT_OPTIONAL_LOCKS=0")
	var stderr strings.Builder
	cmd.Stderr = &limitedWriter{w: &stderr, n: 4096}
	pipe, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("git %s: %w", args[0], err)
	}
	readErr := read(bufio.NewReaderSize(pipe, 1<<16))
	if readErr != nil {
		_ = cmd.Process.Kill()
	}
	_, _ = io.Copy(io.Discard, pipe)
	waitErr := cmd.Wait()
	if readErr != nil {
		return readErr
	}
	if waitErr != nil {
		if msg := strings.TrimSpace(stderr.String()); msg != "" {
			return fmt.Errorf("git %s: %s", args[0], msg)
		}
		return fmt.Errorf("git %s: %w", args[0], waitErr)
	}
	return nil
}

// cleanEnv drops the variables that would point git at another
// repository or work tree than the one found.
func cleanEnv(env []string) []string {
	var out []string
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case "GIT_DIR", "GIT_WORK_TREE", "GIT_COMMON_DIR", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY", "GIT_ALTERNATE_OBJECT_DIRECTORIES":
			continue
		}
		out = append(out, kv)
	}
	return out
}

type limitedWriter struct {
	w io.Writer
	n int
}

func (l *limitedWriter) Write(p []byte) (int, error) {
	n := len(p)
	if l.n > 0 {
		q := p
		if len(q) > l.n {
			q = q[:l.n]
		}
		l.n -= len(q)
		_, _ = l.w.Write(q)
	}
	return n, nil
}
