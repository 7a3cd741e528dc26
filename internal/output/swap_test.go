package output

import (
	"bytes"
	"errors"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/karpgen/karpgen/generators"
	"github.com/karpgen/karpgen/internal/model"
)

// tree is every entry under dir: folders by name, files by name and
// content; karpgen's lock aside.
func tree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || p == dir {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if d.IsDir() {
			out[rel+"/"] = ""
			return nil
		}
		data, _ := os.ReadFile(p)
		out[rel] = string(data)
		return nil
	})
	return out
}

// renderOnce renders envs (env -> content of its one file) and the
// fleet file into out; stop, when set, interrupts the commit at a step
// as a kill would: nothing is cleaned up and the lock is let go.
func renderOnce(t *testing.T, out string, envs map[string]string, fleet string, stop int, stderr io.Writer) error {
	t.Helper()
	d, err := NewDisk(out, DiskOptions{Stdout: io.Discard, Stderr: stderr})
	if err != nil {
		t.Fatal(err)
	}
	for _, env := range slices.Sorted(maps.Keys(envs)) {
		if err := d.Put(&model.Bundle{Env: env, Files: map[string][]byte{"x.yaml": []byte(envs[env])}}); err != nil {
			t.Fatal(err)
		}
	}
	var files map[string][]byte
	if fleet != "" {
		files = map[string][]byte{generators.ApplicationSetFile: []byte(fleet)}
	} else {
		files = map[string][]byte{}
	}
	steps := 0
	interrupt = func(int) bool { steps++; return steps == stop }
	defer func() { interrupt = nil }()
	err = d.Finish(files)
	if errors.Is(err, errInterrupted) {
		d.lock.release() // the process is gone: the kernel lets go of its lock
		return err
	}
	d.Close()
	return err
}

// TestAKilledRenderIsPutBack: a render killed after any step of its
// commit (each exchange or rename of a folder or of out/'s own file)
// leaves out/ so that the next run finds every environment whole and puts
// out/ back as it was before, saying which folders it put back; with
// exchange unavailable (two renames per swap), likewise.
func TestAKilledRenderIsPutBack(t *testing.T) {
	for _, twoStep := range []bool{false, true} {
		if twoStep {
			exchange = func(a, b string) error { return unix.ENOSYS }
		}
		before := map[string]string{"a": "a1\n", "b": "b1\n", "gone": "g1\n"}
		after := map[string]string{"a": "a2\n", "b": "b2\n", "c": "c2\n", "gone": "g1\n"}
		// Every step: one per environment changed or added, one per
		// file of out/ itself; two renames per swap without exchange.
		steps := 4
		if twoStep {
			steps = 7
		}
		for stop := 1; stop <= steps; stop++ {
			out := filepath.Join(t.TempDir(), "out")
			if err := renderOnce(t, out, before, "fleet1\n", 0, io.Discard); err != nil {
				t.Fatal(err)
			}
			want := tree(t, out)
			if err := renderOnce(t, out, after, "fleet2\n", stop, io.Discard); !errors.Is(err, errInterrupted) {
				t.Fatalf("two-step %v, stop %d: %v", twoStep, stop, err)
			}
			var stderr bytes.Buffer
			d, err := NewDisk(out, DiskOptions{Stdout: io.Discard, Stderr: &stderr})
			if err != nil {
				t.Fatalf("two-step %v, stop %d: %v", twoStep, stop, err)
			}
			d.Close()
			if got := tree(t, out); !reflect.DeepEqual(got, want) {
				t.Errorf("two-step %v, killed after step %d: out/ is\n%v\nwant\n%v", twoStep, stop, got, want)
			}
			msg := stderr.String()
			if !strings.HasPrefix(msg, "karpgen: a render of "+filepath.ToSlash(out)+" was interrupted while it replaced folders; put back as they were before it: ") {
				t.Errorf("two-step %v, stop %d: %q", twoStep, stop, msg)
			}
			// Then the render runs again, whole.
			if err := renderOnce(t, out, after, "fleet2\n", 0, io.Discard); err != nil {
				t.Fatal(err)
			}
			if got := tree(t, out)["c/x.yaml"]; got != "c2\n" {
				t.Errorf("two-step %v, stop %d: the render after: %q", twoStep, stop, got)
			}
		}
		exchange = exchangeNames
	}
}

// TestAJournalIsUntrusted: a journal committed into out/ moves nothing
// outside out/ and no entry that is not karpgen's own, and one whose
// inodes match nothing moves nothing at all.
func TestAJournalIsUntrusted(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	if err := renderOnce(t, out, map[string]string{"a": "a1\n"}, "", 0, io.Discard); err != nil {
		t.Fatal(err)
	}
	for _, journal := range []string{
		"swap\t../x\t.karpgen-a\t1\n",
		"swap\ta\t../.karpgen-a\t1\n",
		"swap\ta\tb\t1\n",
		"new\t/etc\t.karpgen-a\t1\n",
		"drop\ta\t.karpgen-a\t1\n",
		"swap\ta\t.karpgen-journal\t1\n",
	} {
		os.WriteFile(filepath.Join(out, journalFile), []byte(journal), 0o644)
		_, err := NewDisk(out, DiskOptions{Stdout: io.Discard, Stderr: io.Discard})
		if err == nil || !strings.Contains(err.Error(), "not a move karpgen writes") {
			t.Errorf("journal %q: %v", journal, err)
		}
		os.Remove(filepath.Join(out, journalFile))
	}
	want := tree(t, out)
	os.Mkdir(filepath.Join(out, ".karpgen-a"), 0o755)
	os.WriteFile(filepath.Join(out, journalFile), []byte("swap\ta\t.karpgen-a\t1\nnew\ta\t.karpgen-b\t2\n"), 0o644)
	var stderr bytes.Buffer
	d, err := NewDisk(out, DiskOptions{Stdout: io.Discard, Stderr: &stderr})
	if err != nil {
		t.Fatal(err)
	}
	d.Close()
	if got := tree(t, out); !reflect.DeepEqual(got, want) || stderr.Len() > 0 {
		t.Errorf("out/ is %v (%q), want %v", got, stderr.String(), want)
	}
}

// TestWhatCannotBeRemovedStopsTheRenderFirst: a folder inside an
// environment's folder that this user cannot delete from stops the
// render before anything changes, naming it; nothing is left in out/.
// Run as an unprivileged user (root deletes anything).
func TestWhatCannotBeRemovedStopsTheRenderFirst(t *testing.T) {
	if dir := os.Getenv("KARPGEN_TEST_OUT"); dir != "" {
		err := renderOnce(t, dir, map[string]string{"a": "a2\n"}, "", 0, io.Discard)
		os.WriteFile(filepath.Join(filepath.Dir(dir), "result"), []byte(err.Error()), 0o644)
		return
	}
	base := t.TempDir()
	os.Chmod(base, 0o777)
	os.Chmod(filepath.Dir(base), 0o755)
	out := filepath.Join(base, "out")
	if err := renderOnce(t, out, map[string]string{"a": "a1\n"}, "", 0, io.Discard); err != nil {
		t.Fatal(err)
	}
	locked := filepath.Join(out, "a", "locked")
	os.MkdirAll(filepath.Join(locked, "inner"), 0o755)
	os.WriteFile(filepath.Join(locked, "inner", "f"), nil, 0o644)
	os.Chmod(filepath.Join(locked, "inner"), 0o555)
	os.WriteFile(filepath.Join(out, "a", ManifestFile), []byte(manifestHead+"x.yaml\nlocked/inner/f\n"), 0o644)
	want := tree(t, out)
	var result string
	if os.Geteuid() != 0 {
		err := renderOnce(t, out, map[string]string{"a": "a2\n"}, "", 0, io.Discard)
		result = err.Error()
	} else {
		// Root: the same render by the user nobody, with a copy of this
		// test binary it can run and out/ its own.
		self, err := os.Executable()
		if err != nil {
			t.Fatal(err)
		}
		bin := filepath.Join(base, "test.bin")
		data, err := os.ReadFile(self)
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(bin, data, 0o755)
		if out, err := exec.Command("chown", "-R", "65534:65534", out).CombinedOutput(); err != nil {
			t.Skipf("chown: %v %s", err, out)
		}
		cmd := exec.Command(bin, "-test.run=^TestWhatCannotBeRemovedStopsTheRenderFirst$")
		cmd.Env = append(os.Environ(), "KARPGEN_TEST_OUT="+out)
		cmd.Dir = base
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
		if o, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("as nobody: %v\n%s", err, o)
		}
		r, err := os.ReadFile(filepath.Join(base, "result"))
		if err != nil {
			t.Fatal(err)
		}
		result = string(r)
	}
	inner := filepath.ToSlash(filepath.Join(locked, "inner"))
	if !strings.HasPrefix(result, inner+" is not writable (permission denied): karpgen could not remove what it replaces; make it writable (chmod -R u+w "+filepath.ToSlash(filepath.Join(out, "a"))+"); nothing was changed") {
		t.Errorf("render: %s", result)
	}
	if got := tree(t, out); !reflect.DeepEqual(got, want) {
		t.Errorf("out/ changed:\n%v\nwant\n%v", got, want)
	}
}

// TestCheckSaysARenderWasInterrupted: render --check on an out/ a killed
// render left says so, instead of a diff of half of two renders.
func TestCheckSaysARenderWasInterrupted(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	if err := renderOnce(t, out, map[string]string{"a": "a1\n", "b": "b1\n"}, "", 0, io.Discard); err != nil {
		t.Fatal(err)
	}
	if err := renderOnce(t, out, map[string]string{"a": "a2\n", "b": "b2\n"}, "", 1, io.Discard); !errors.Is(err, errInterrupted) {
		t.Fatal(err)
	}
	var stdout bytes.Buffer
	c := &Check{Dir: out, Stdout: &stdout}
	err := c.Finish(nil)
	if err == nil || err.Error() != filepath.ToSlash(out)+" holds a render that was interrupted (.karpgen-journal): run karpgen render, which puts it back first" || stdout.Len() > 0 {
		t.Errorf("check: %v %q", err, stdout.String())
	}
}
