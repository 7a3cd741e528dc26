package gitrev

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/karpgen/karpgen/internal/reference"
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
		reference.Missing(t, "git is not installed")
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
