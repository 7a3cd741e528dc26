package gosrc

import (
	"archive/tar"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"testing/fstest"
)

// Upstream is one upstream tree a table is derived from, as its record
// names it: the module version and, when the Go module proxy serves its
// zip, the zip's go.sum hash; and the repository and commit of the same
// tree, for when the proxy does not serve it.
type Upstream struct {
	Module  string // module path
	Version string // module version
	Sum     string // "h1:..." of the zip; "" when the proxy serves none
	Repo    string // GitHub owner/name
	Commit  string // full commit hash
}

// String names the tree as a record and a message do.
func (u Upstream) String() string { return u.Module + "@" + u.Version }

// UpstreamEnv names the folder of upstream checkouts: git directories
// named owner+name (optionally holding repo/ or .git/), or name, or
// name.git.
const UpstreamEnv = "KARPGEN_UPSTREAM"

// ErrUnavailable is a tree that neither the module proxy nor a checkout
// under $KARPGEN_UPSTREAM holds.
var ErrUnavailable = errors.New("neither the module proxy nor a checkout has it")

// Read reads the files of the tree at the paths given (relative to the
// module's root; a path ending in "/" is a folder, read whole): from the module zip when the record has its hash (the
// zip `go mod download` fetches must have that hash), else from the
// commit through `git archive` in a checkout under $KARPGEN_UPSTREAM. It
// says which it read. ErrUnavailable when it can read neither.
func (u Upstream) Read(paths []string) (fstest.MapFS, string, error) {
	if u.Sum != "" {
		files, err := u.fromZip(paths)
		if err == nil {
			return files, fmt.Sprintf("module %s zip %s", u, u.Sum), nil
		}
		if !errors.Is(err, ErrUnavailable) {
			return nil, "", err
		}
	}
	if u.Commit != "" {
		files, err := u.fromCheckout(paths)
		if err == nil {
			return files, fmt.Sprintf("%s commit %s", u.Repo, u.Commit), nil
		}
		if !errors.Is(err, ErrUnavailable) {
			return nil, "", err
		}
	}
	return nil, "", fmt.Errorf("%s: %w", u, ErrUnavailable)
}

// download is what `go mod download -json` says of one module version.
type download struct {
	Zip, Sum, Error string
}

func (u Upstream) fromZip(paths []string) (fstest.MapFS, error) {
	cmd := exec.Command("go", "mod", "download", "-json", u.String())
	// The zip of a release that asks for a newer Go still downloads:
	// go reports the toolchain, not the zip, as the error.
	cmd.Env = append(os.Environ(), "GOTOOLCHAIN=local", "GOFLAGS=-mod=mod")
	out, _ := cmd.Output()
	var d download
	if err := json.Unmarshal(out, &d); err != nil || d.Zip == "" {
		return nil, ErrUnavailable
	}
	if _, err := os.Stat(d.Zip); err != nil {
		return nil, ErrUnavailable
	}
	if d.Sum != "" && d.Sum != u.Sum {
		return nil, fmt.Errorf("%s: the proxy's zip has hash %s, the record %s", u, d.Sum, u.Sum)
	}
	src, closeSrc, err := Open(d.Zip)
	if err != nil {
		return nil, err
	}
	defer closeSrc()
	files := fstest.MapFS{}
	for _, p := range paths {
		if dir, ok := strings.CutSuffix(p, "/"); ok {
			err := fs.WalkDir(src, dir, func(name string, d fs.DirEntry, err error) error {
				if err != nil || d.IsDir() {
					return err
				}
				data, err := fs.ReadFile(src, name)
				files[name] = &fstest.MapFile{Data: data}
				return err
			})
			if err != nil {
				return nil, fmt.Errorf("%s: %w", u, err)
			}
			continue
		}
		data, err := fs.ReadFile(src, p)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", u, err)
		}
		files[p] = &fstest.MapFile{Data: data}
	}
	return files, nil
}

// checkout finds the git directory of the repository under
// $KARPGEN_UPSTREAM that holds the commit.
func (u Upstream) checkout() (string, bool) {
	root := os.Getenv(UpstreamEnv)
	if root == "" || u.Repo == "" {
		return "", false
	}
	owner, name, _ := strings.Cut(u.Repo, "/")
	for _, dir := range []string{owner + "+" + name, name, name + ".git"} {
		for _, gitDir := range []string{filepath.Join(root, dir, "repo"), filepath.Join(root, dir, ".git"), filepath.Join(root, dir)} {
			cmd := exec.Command("git", "--git-dir", gitDir, "cat-file", "-e", u.Commit+"^{commit}")
			cmd.Env = gitEnv()
			if cmd.Run() == nil {
				return gitDir, true
			}
		}
	}
	return "", false
}

func (u Upstream) fromCheckout(paths []string) (fstest.MapFS, error) {
	gitDir, ok := u.checkout()
	if !ok {
		return nil, ErrUnavailable
	}
	args := append([]string{"--git-dir", gitDir, "archive", "--format=tar", u.Commit, "--"}, paths...)
	cmd := exec.Command("git", args...)
	cmd.Env = gitEnv()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("%s: git archive %s: %v: %s", u.Repo, u.Commit, err, strings.TrimSpace(stderr.String()))
	}
	files := fstest.MapFS{}
	r := tar.NewReader(bytes.NewReader(out))
	for {
		h, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		if h.Typeflag != tar.TypeReg {
			continue
		}
		data, err := io.ReadAll(r)
		if err != nil {
			return nil, err
		}
		files[path.Clean(h.Name)] = &fstest.MapFile{Data: data}
	}
	for _, p := range paths {
		if _, ok := files[p]; !ok && !strings.HasSuffix(p, "/") {
			return nil, fmt.Errorf("%s commit %s has no %s", u.Repo, u.Commit, p)
		}
	}
	return files, nil
}

// gitEnv is the environment of git: no configuration of the user's or
// the system's, which could redirect it.
func gitEnv() []string {
	return append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null")
}

// Root is the repository's root: the folder above the working directory
// whose go.mod is karpgen's (go generate runs a generator in its
// package's folder).
func Root() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if data, err := os.ReadFile(filepath.Join(dir, "go.mod")); err == nil && strings.HasPrefix(string(data), "module github.com/karpgen/karpgen\n") {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("not inside the karpgen repository")
		}
		dir = parent
	}
}

// CheckEnv, set to 1, makes a generator compare what it would write with
// the file instead of writing it: make generate-check runs go generate so.
const CheckEnv = "KARPGEN_GENERATE_CHECK"

// Output writes a generated file (a path relative to the repository's
// root), or under $KARPGEN_GENERATE_CHECK=1 fails when the file is not
// what the generator makes.
func Output(root, rel string, data []byte) error {
	file := filepath.Join(root, filepath.FromSlash(rel))
	if os.Getenv(CheckEnv) == "1" {
		have, err := os.ReadFile(file)
		if err != nil || !bytes.Equal(have, data) {
			return fmt.Errorf("%s is not what its generator makes of its sources (make generate writes it)", rel)
		}
		return nil
	}
	return os.WriteFile(file, data, 0o644)
}

// recorded finds "from module M@V zip h1:..." in a derived file's record.
var recorded = regexp.MustCompile(`from module ([^@ ]+)@(v[0-9][^ ]*) zip (h1:\S+?);? `)

// Recorded is the module zip a record (a SOURCE file, a derived file's
// header) says its data came from.
func Recorded(record []byte) (Upstream, bool) {
	m := recorded.FindSubmatch(record)
	if m == nil {
		return Upstream{}, false
	}
	return Upstream{Module: string(m[1]), Version: string(m[2]), Sum: string(m[3])}, true
}
