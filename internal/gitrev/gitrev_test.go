package gitrev

import (
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/karpgen/karpgen/internal/oracle"
)

func gitIn(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

// TestOpenReadsTheRevision: a folder at a revision holds exactly the
// bytes committed there (nested files, no final newline, binary, an
// executable), not what the work tree holds since; other folders of the
// repository are not in it.
func TestOpenReadsTheRevision(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		oracle.Missing(t, "git is not installed")
	}
	repo := t.TempDir()
	gitIn(t, repo, "init", "-q", ".")
	files := map[string]string{
		"profiles/env.cue":          "package profiles\n",
		"profiles/nested/data.json": "{\"a\": 1}",
		"profiles/bin.dat":          "\x00\x01\xff\n\x00",
		"profiles/run.sh":           "#!/bin/sh\n",
		"other/secret.txt":          "not part of the folder\n",
		"profiles/with space é.cue": "package profiles\n// é\n",
	}
	for name, text := range files {
		p := filepath.Join(repo, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		mode := os.FileMode(0o644)
		if strings.HasSuffix(name, ".sh") {
			mode = 0o755
		}
		if err := os.WriteFile(p, []byte(text), mode); err != nil {
			t.Fatal(err)
		}
	}
	gitIn(t, repo, "add", ".")
	gitIn(t, repo, "commit", "-q", "-m", "one")
	os.WriteFile(filepath.Join(repo, "profiles", "env.cue"), []byte("changed since\n"), 0o644)

	f, err := Open(filepath.Join(repo, "profiles"), "HEAD")
	if err != nil {
		t.Fatal(err)
	}
	if f.Path != "profiles" || len(f.Commit) != 40 || f.Empty {
		t.Errorf("folder %+v", f)
	}
	var got []string
	fs.WalkDir(f.FS, ".", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			got = append(got, p)
			data, _ := fs.ReadFile(f.FS, p)
			if want := files["profiles/"+p]; string(data) != want {
				t.Errorf("%s: %q, want %q", p, data, want)
			}
		}
		return nil
	})
	if strings.Join(got, ",") != "bin.dat,env.cue,nested/data.json,run.sh,with space é.cue" {
		t.Errorf("files %v", got)
	}

	for _, rev := range []string{"--output=x", "-h", "HEAD\nx", ""} {
		if _, err := Open(repo, rev); err == nil || !strings.Contains(err.Error(), "is not a git revision") {
			t.Errorf("revision %q: %v", rev, err)
		}
	}
	if _, err := os.Stat(filepath.Join(repo, "x")); err == nil {
		t.Errorf("a revision was taken for an option")
	}
	empty, err := Open(filepath.Join(repo, "other"), "HEAD~0")
	if err != nil || empty.Empty {
		t.Errorf("other: %+v %v", empty, err)
	}
}

func needGit(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		oracle.Missing(t, "git is not installed")
	}
}

func write(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, text := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestABareRepositoryInTheTreeIsNotTheRepository: a change that commits
// the files of a bare repository (HEAD, config, objects/, refs/) into the
// profiles folder, its config pointing a work tree anywhere, does not
// become the place the base is read from: the revision is the
// repository's own, and git runs nothing the planted config names.
func TestABareRepositoryInTheTreeIsNotTheRepository(t *testing.T) {
	needGit(t)
	repo := t.TempDir()
	gitIn(t, repo, "init", "-q", ".")
	write(t, repo, map[string]string{"profiles/env.cue": "base\n"})
	gitIn(t, repo, "add", ".")
	gitIn(t, repo, "commit", "-q", "-m", "base")

	// The planted repository's HEAD~1 holds what the change holds.
	evil := t.TempDir()
	gitIn(t, evil, "init", "-q", ".")
	write(t, evil, map[string]string{"profiles/env.cue": "changed\n"})
	gitIn(t, evil, "add", ".")
	gitIn(t, evil, "commit", "-q", "-m", "one")
	gitIn(t, evil, "commit", "-q", "--allow-empty", "-m", "two")
	planted := filepath.Join(repo, "profiles")
	cmd := exec.Command("sh", "-c", `cp -R "$1"/. "$2"/`, "sh", filepath.Join(evil, ".git"), planted)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	marker := filepath.Join(t.TempDir(), "ran")
	gitIn(t, repo, "config", "-f", filepath.Join(planted, "config"), "core.bare", "false")
	gitIn(t, repo, "config", "-f", filepath.Join(planted, "config"), "core.worktree", "..")
	gitIn(t, repo, "config", "-f", filepath.Join(planted, "config"), "core.fsmonitor", "touch "+marker)
	write(t, repo, map[string]string{"profiles/env.cue": "changed\n"})
	gitIn(t, repo, "add", ".")
	gitIn(t, repo, "commit", "-q", "-m", "the change")

	f, err := Open(planted, "HEAD~1")
	if err != nil {
		t.Fatal(err)
	}
	data, err := fs.ReadFile(f.FS, "env.cue")
	if err != nil || string(data) != "base\n" {
		t.Errorf("the base read is %q (%v), want the repository's own \"base\\n\"", data, err)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Errorf("git ran the command the planted config names")
	}
}

// TestLimitsHoldWhileReading: a revision whose files add up to more than
// the limit (one blob under many names) is refused from its tree, before
// any blob is read; so is one of too many files.
func TestLimitsHoldWhileReading(t *testing.T) {
	needGit(t)
	repo := t.TempDir()
	gitIn(t, repo, "init", "-q", ".")
	big := strings.Repeat("x", 1<<20)
	files := map[string]string{}
	for i := range 40 {
		files[filepath.Join("profiles", "copy"+strings.Repeat("a", i)+".cue")] = big
	}
	write(t, repo, files)
	gitIn(t, repo, "add", ".")
	gitIn(t, repo, "commit", "-q", "-m", "big")

	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	_, err := OpenLimited(filepath.Join(repo, "profiles"), "HEAD", Limits{Bytes: 32 << 20})
	runtime.ReadMemStats(&after)
	if err == nil || err.Error() != "profiles at HEAD holds more than 32 MiB" {
		t.Errorf("40 MiB under a limit of 32: %v", err)
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > 4<<20 {
		t.Errorf("refusing the revision allocated %d bytes: its blobs were read", got)
	}
	if _, err := OpenLimited(filepath.Join(repo, "profiles"), "HEAD", Limits{Files: 39}); err == nil || err.Error() != "profiles at HEAD holds more than 39 files" {
		t.Errorf("40 files under a limit of 39: %v", err)
	}
	f, err := OpenLimited(filepath.Join(repo, "profiles"), "HEAD", Limits{Bytes: 40 << 20, Files: 40})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	fs.WalkDir(f.FS, ".", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			data, _ := fs.ReadFile(f.FS, p)
			if string(data) != big {
				t.Errorf("%s: %d bytes", p, len(data))
			}
			n++
		}
		return nil
	})
	if n != 40 {
		t.Errorf("%d files, want 40", n)
	}
}

// TestNamesAreMistakes: a name that is no revision, or a folder outside
// any work tree, is a NameError (the caller's mistake); a link in the
// revision is not.
func TestNamesAreMistakes(t *testing.T) {
	needGit(t)
	var bad *NameError
	if _, err := Open(t.TempDir(), "HEAD"); !errors.As(err, &bad) || !strings.HasSuffix(err.Error(), "is not inside a git work tree") {
		t.Errorf("outside a work tree: %v", err)
	}
	repo := t.TempDir()
	gitIn(t, repo, "init", "-q", ".")
	write(t, repo, map[string]string{"profiles/env.cue": "x\n"})
	if err := os.Symlink("/etc/passwd", filepath.Join(repo, "profiles", "leak.cue")); err != nil {
		t.Skip("no symbolic links here")
	}
	gitIn(t, repo, "add", ".")
	gitIn(t, repo, "commit", "-q", "-m", "link")
	if _, err := Open(filepath.Join(repo, "profiles"), "nope"); !errors.As(err, &bad) {
		t.Errorf("no such revision: %v", err)
	}
	_, err := Open(filepath.Join(repo, "profiles"), "HEAD")
	if errors.As(err, &bad) || err == nil || err.Error() != "profiles/leak.cue at HEAD is a symbolic link: karpgen follows no links of a revision" {
		t.Errorf("a link: %v", err)
	}
}
