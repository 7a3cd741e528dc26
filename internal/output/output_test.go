package output_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/karpgen/karpgen/generators"
	"github.com/karpgen/karpgen/internal/model"
	"github.com/karpgen/karpgen/internal/output"
)

func bundle(env string, files map[string]string) *model.Bundle {
	b := &model.Bundle{Env: env, Files: map[string][]byte{}}
	for p, s := range files {
		b.Files[p] = []byte(s)
	}
	return b
}

func write(t *testing.T, path, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestDiffMarksMissingFinalNewline(t *testing.T) {
	out := t.TempDir()
	write(t, filepath.Join(out, "dev", "a.yaml"), "one\ntwo")
	write(t, filepath.Join(out, "dev", ".karpgen-files"), "# Files karpgen wrote for this environment; karpgen render replaces only these.\na.yaml\n")
	var w bytes.Buffer
	differs, err := output.DiffBundle(&w, out, bundle("dev", map[string]string{"a.yaml": "one\ntwo\n"}), nil)
	if err != nil || !differs {
		t.Fatalf("differs %v, err %v", differs, err)
	}
	shown := strings.TrimPrefix(filepath.ToSlash(out), "/")
	want := "diff " + filepath.ToSlash(out) + "/dev/a.yaml\n" +
		"--- a/" + shown + "/dev/a.yaml\n" +
		"+++ b/" + shown + "/dev/a.yaml\n" +
		"@@ -1,2 +1,2 @@\n" +
		" one\n" +
		"-two\n" +
		"\\ No newline at end of file\n" +
		"+two\n"
	if w.String() != want {
		t.Errorf("diff:\n%s\nwant:\n%s", w.String(), want)
	}
}

func TestDiffNewAndRemovedFiles(t *testing.T) {
	out := t.TempDir()
	write(t, filepath.Join(out, "dev", "old.json"), "{}\n")
	var w bytes.Buffer
	if _, err := output.DiffBundle(&w, "out", bundle("dev", map[string]string{"new.json": "[]"}), nil); err != nil {
		t.Fatal(err)
	}
	// "out" is relative and does not exist here: only the new file shows.
	want := "diff out/dev/.karpgen-files\n--- /dev/null\n+++ b/out/dev/.karpgen-files\n@@ -0,0 +1,2 @@\n" +
		"+# Files karpgen wrote for this environment; karpgen render replaces only these.\n+new.json\n" +
		"diff out/dev/new.json\n--- /dev/null\n+++ b/out/dev/new.json\n@@ -0,0 +1 @@\n+[]\n\\ No newline at end of file\n"
	if w.String() != want {
		t.Errorf("diff:\n%q\nwant\n%q", w.String(), want)
	}
	w.Reset()
	if _, err := output.DiffBundle(&w, out, bundle("dev", nil), nil); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(w.String(), "+++ /dev/null\n@@ -1 +0,0 @@\n-{}\n") {
		t.Errorf("removed file:\n%s", w.String())
	}
}

func newDisk(t *testing.T, out string, names []string, stdout, stderr *bytes.Buffer) *output.Disk {
	t.Helper()
	disk, err := output.NewDisk(out, output.DiskOptions{Names: names, Stdout: stdout, Stderr: stderr})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(disk.Close)
	return disk
}

func TestDiskSink(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	var stdout, stderr bytes.Buffer
	disk := newDisk(t, out, []string{"dev", "prod"}, &stdout, &stderr)
	b := bundle("dev", map[string]string{"a.yaml": "a\n", "iam/b.json": "{}\n"})
	if err := disk.Put(b); err != nil {
		t.Fatal(err)
	}
	if err := disk.Finish(map[string][]byte{generators.ApplicationSetFile: []byte("set\n")}); err != nil {
		t.Fatal(err)
	}
	disk.Close()
	o := filepath.ToSlash(out)
	if want := o + "/dev: written (2 files)\n" + o + "/argocd-applicationset.yaml: written\n"; stdout.String() != want {
		t.Errorf("stdout:\n%s\nwant:\n%s", stdout.String(), want)
	}
	files, err := output.ReadDir(out)
	if err != nil {
		t.Fatal(err)
	}
	manifest := "# Files karpgen wrote for this environment; karpgen render replaces only these.\na.yaml\niam/b.json\n"
	if len(files) != 4 || string(files["dev/iam/b.json"]) != "{}\n" || string(files["argocd-applicationset.yaml"]) != "set\n" ||
		string(files["dev/.karpgen-files"]) != manifest {
		t.Errorf("out/ holds %q", files)
	}

	// The same bundle again changes nothing; the fleet file goes when no
	// environment has an Application; folders of no environment are named,
	// those karpgen wrote apart from the others.
	write(t, filepath.Join(out, "old", "x"), "x")
	write(t, filepath.Join(out, "gone", "a.yaml"), "a\n")
	write(t, filepath.Join(out, "gone", ".karpgen-files"), "a.yaml\n")
	stdout.Reset()
	disk = newDisk(t, out, []string{"dev", "prod"}, &stdout, &stderr)
	if err := disk.Put(b); err != nil {
		t.Fatal(err)
	}
	if err := disk.Finish(map[string][]byte{}); err != nil {
		t.Fatal(err)
	}
	if want := o + "/dev: unchanged\n" + o + "/argocd-applicationset.yaml: removed\n"; stdout.String() != want {
		t.Errorf("stdout:\n%s\nwant:\n%s", stdout.String(), want)
	}
	want := "karpgen: " + o + "/gone was written for an environment the profiles no longer have; delete it once nothing uses it\n" +
		"karpgen: " + o + "/old belongs to no environment of the profiles; remove it if it is stale\n"
	if stderr.String() != want {
		t.Errorf("stderr %q, want %q", stderr.String(), want)
	}
	noLeftovers(t, out)
}

func noLeftovers(t *testing.T, out string) {
	t.Helper()
	entries, _ := os.ReadDir(out)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".karpgen-") {
			t.Errorf("leftover %s", e.Name())
		}
	}
}

// TestDiskForeignFiles: a file karpgen did not write stops the render and
// is named; files karpgen wrote and no longer makes go; --delete-foreign
// deletes foreign files.
func TestDiskForeignFiles(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	var stdout, stderr bytes.Buffer
	disk := newDisk(t, out, nil, &stdout, &stderr)
	if err := disk.Put(bundle("dev", map[string]string{"a.yaml": "a\n", "old.yaml": "o\n"})); err != nil {
		t.Fatal(err)
	}
	if err := disk.Finish(nil); err != nil {
		t.Fatal(err)
	}
	disk.Close()
	write(t, filepath.Join(out, "dev", "notes.txt"), "mine")

	disk = newDisk(t, out, nil, &stdout, &stderr)
	err := disk.Put(bundle("dev", map[string]string{"a.yaml": "b\n"}))
	want := filepath.ToSlash(out) + "/dev holds " + filepath.ToSlash(out) + "/dev/notes.txt, which karpgen did not write; move it out of the way, or pass --delete-foreign to let karpgen delete it"
	if err == nil || err.Error() != want {
		t.Fatalf("err %v\nwant %s", err, want)
	}
	disk.Close()
	if data, _ := os.ReadFile(filepath.Join(out, "dev", "a.yaml")); string(data) != "a\n" {
		t.Errorf("a refused render changed a.yaml: %q", data)
	}

	os.Remove(filepath.Join(out, "dev", "notes.txt"))
	disk = newDisk(t, out, nil, &stdout, &stderr)
	if err := disk.Put(bundle("dev", map[string]string{"a.yaml": "b\n"})); err != nil {
		t.Fatal(err)
	}
	if err := disk.Finish(nil); err != nil {
		t.Fatal(err)
	}
	disk.Close()
	if _, err := os.Stat(filepath.Join(out, "dev", "old.yaml")); err == nil {
		t.Error("old.yaml, which karpgen wrote and no longer makes, is still there")
	}

	write(t, filepath.Join(out, "dev", "notes.txt"), "mine")
	disk, err = output.NewDisk(out, output.DiskOptions{DeleteForeign: true, Stdout: &stdout, Stderr: &stderr})
	if err != nil {
		t.Fatal(err)
	}
	defer disk.Close()
	if err := disk.Put(bundle("dev", map[string]string{"a.yaml": "c\n"})); err != nil {
		t.Fatal(err)
	}
	if err := disk.Finish(nil); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(out, "dev", "notes.txt")); err == nil {
		t.Error("--delete-foreign kept notes.txt")
	}
}

// TestDiskRollsBack: when one folder cannot be replaced, the folders
// already replaced are put back and nothing is left behind.
func TestDiskRollsBack(t *testing.T) {
	if os.Geteuid() == 0 {
		// root ignores permissions: make the swap fail with a file
		// where a folder must go instead.
		t.Log("running as root: a file stands where a folder goes")
	}
	out := filepath.Join(t.TempDir(), "out")
	var stdout, stderr bytes.Buffer
	disk := newDisk(t, out, nil, &stdout, &stderr)
	for _, env := range []string{"a", "b"} {
		if err := disk.Put(bundle(env, map[string]string{"x.yaml": env + "1\n"})); err != nil {
			t.Fatal(err)
		}
	}
	if err := disk.Finish(nil); err != nil {
		t.Fatal(err)
	}
	disk.Close()
	before, _ := output.ReadDir(out)

	stdout.Reset()
	disk = newDisk(t, out, nil, &stdout, &stderr)
	for _, env := range []string{"a", "b"} {
		if err := disk.Put(bundle(env, map[string]string{"x.yaml": env + "2\n"})); err != nil {
			t.Fatal(err)
		}
	}
	// b's staged folder disappears before the swap: a stands in for any
	// failure of the second move.
	entries, _ := os.ReadDir(out)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".karpgen-b-") {
			os.RemoveAll(filepath.Join(out, e.Name()))
		}
	}
	err := disk.Finish(nil)
	if err == nil || !strings.HasPrefix(err.Error(), "replacing "+filepath.ToSlash(out)+"/b: ") || !strings.HasSuffix(err.Error(), "; nothing was changed") {
		t.Fatalf("err %v", err)
	}
	disk.Close()
	after, _ := output.ReadDir(out)
	if !reflect.DeepEqual(before, after) {
		t.Errorf("out/ changed:\nbefore %q\nafter  %q", before, after)
	}
	if stdout.Len() != 0 {
		t.Errorf("status lines after a failed render: %q", stdout.String())
	}
	noLeftovers(t, out)
}

// TestDiskLock: a second render of the same out/ waits, then gives up.
func TestDiskLock(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	var stdout, stderr bytes.Buffer
	first := newDisk(t, out, nil, &stdout, &stderr)
	_, err := output.NewDisk(out, output.DiskOptions{LockWait: 100 * time.Millisecond, Stdout: &stdout, Stderr: &stderr})
	want := "another karpgen (render, or upgrade --write) is writing " + filepath.ToSlash(out) + "; gave up after waiting 100ms (--lock-wait)"
	if err == nil || err.Error() != want {
		t.Fatalf("err %v", err)
	}
	first.Close()
	second, err := output.NewDisk(out, output.DiskOptions{LockWait: time.Second, Stdout: &stdout, Stderr: &stderr})
	if err != nil {
		t.Fatalf("after the first render let go: %v", err)
	}
	second.Close()
}

func TestCheckSink(t *testing.T) {
	out := t.TempDir()
	write(t, filepath.Join(out, "dev", "a.yaml"), "a\n")
	var w bytes.Buffer
	c := &output.Check{Dir: out, Stdout: &w}
	write(t, filepath.Join(out, "dev", ".karpgen-files"), "# Files karpgen wrote for this environment; karpgen render replaces only these.\na.yaml\n")
	if err := c.Put(bundle("dev", map[string]string{"a.yaml": "a\n"})); err != nil {
		t.Fatal(err)
	}
	if err := c.Finish(nil); err != nil || w.Len() != 0 {
		t.Fatalf("current out/: err %v, output %q", err, w.String())
	}
	c = &output.Check{Dir: out, Stdout: &w}
	if err := c.Put(bundle("dev", map[string]string{"a.yaml": "b\n"})); err != nil {
		t.Fatal(err)
	}
	err := c.Finish(nil)
	var d *output.DiffersError
	if !errors.As(err, &d) || err.Error() != filepath.ToSlash(out)+" is not what the profiles render: run karpgen render" {
		t.Errorf("stale out/: %v", err)
	}
	if !strings.HasSuffix(w.String(), "@@ -1 +1 @@\n-a\n+b\n") {
		t.Errorf("diff:\n%s", w.String())
	}
}

func TestBuildSink(t *testing.T) {
	objects := map[string]string{
		"kustomization.yaml": "resources:\n- np.yaml\n",
		"np.yaml":            "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata:\n  name: app\n",
	}
	overlays := t.TempDir()
	var w bytes.Buffer
	s := &output.Build{Overlays: overlays, Stdout: &w}
	if err := s.Put(bundle("dev", objects)); err != nil {
		t.Fatal(err)
	}
	if err := s.Finish(nil); err != nil {
		t.Fatal(err)
	}
	if want := "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata:\n  name: app\n"; w.String() != want {
		t.Errorf("build:\n%s", w.String())
	}

	write(t, filepath.Join(overlays, "dev", "kustomization.yaml"), "labels:\n- pairs:\n    team: a\n")
	w.Reset()
	s = &output.Build{Overlays: overlays, Stdout: &w}
	if err := s.Put(bundle("dev", objects)); err != nil {
		t.Fatal(err)
	}
	if err := s.Finish(nil); err != nil || !strings.Contains(w.String(), "labels:\n    team: a\n") {
		t.Errorf("overlay: %v\n%s", err, w.String())
	}

	w.Reset()
	s = &output.Build{Overlays: t.TempDir(), Stdout: &w}
	err := s.Put(bundle("dev", map[string]string{"kustomization.yaml": "resources: []\n"}))
	if err == nil || err.Error() != "environment dev has no Kubernetes objects" || w.Len() != 0 {
		t.Errorf("empty build: %v, output %q", err, w.String())
	}
}

func TestWriteNewNeverOverwrites(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "profiles")
	written, err := output.WriteNew(dir, map[string][]byte{"b.cue": []byte("b"), "a.cue": []byte("a")})
	if err != nil || len(written) != 2 || filepath.Base(written[0]) != "a.cue" {
		t.Fatalf("written %v, err %v", written, err)
	}
	write(t, filepath.Join(dir, "a.cue"), "mine")
	_, err = output.WriteNew(dir, map[string][]byte{"a.cue": []byte("new"), "c.cue": []byte("c")})
	if err == nil || err.Error() != filepath.Join(dir, "a.cue")+" exists; karpgen never overwrites it" {
		t.Errorf("err %v", err)
	}
	if data, _ := os.ReadFile(filepath.Join(dir, "a.cue")); string(data) != "mine" {
		t.Errorf("a.cue is %q", data)
	}
	if _, err := os.Stat(filepath.Join(dir, "c.cue")); err == nil {
		t.Error("c.cue was written although a.cue exists")
	}
}

// FuzzDiff: for any two texts the diff says whether they differ, and its
// lines are a unified diff's: headers, hunks, context, additions, removals
// and the no-newline marker, with as many removed and added lines as the
// texts have lines that changed.
func FuzzDiff(f *testing.F) {
	f.Add("a\nb\nc\n", "a\nB\nc\n")
	f.Add("one\ntwo", "one\ntwo\n")
	f.Add("", "x")
	f.Add("x\n", "")
	f.Fuzz(func(t *testing.T, old, cur string) {
		out := t.TempDir()
		if old != "" {
			write(t, filepath.Join(out, "dev", "f"), old)
		}
		b := bundle("dev", nil)
		if cur != "" {
			b.Files["f"] = []byte(cur)
		}
		var w bytes.Buffer
		if _, err := output.DiffBundle(&w, out, b, nil); err != nil {
			t.Fatal(err)
		}
		// Keep the file's diff only (the manifest is new in every case).
		text := w.String()
		i := strings.Index(text, "diff "+filepath.ToSlash(out)+"/dev/f\n")
		if (old == cur) != (i < 0) {
			t.Fatalf("old %q, new %q: diff %q", old, cur, text)
		}
		if i < 0 {
			return
		}
		text = text[i:]
		if !strings.HasSuffix(text, "\n") {
			t.Errorf("diff does not end in a newline: %q", text)
		}
		for n, line := range strings.Split(strings.TrimSuffix(text, "\n"), "\n")[1:] {
			switch {
			case n < 2 && (strings.HasPrefix(line, "--- ") || strings.HasPrefix(line, "+++ ")):
			case strings.HasPrefix(line, "@@ "), strings.HasPrefix(line, " "), strings.HasPrefix(line, "+"),
				strings.HasPrefix(line, "-"), line == `\ No newline at end of file`:
			default:
				t.Fatalf("line %d of the diff is none of a unified diff's: %q\n%s", n+1, line, text)
			}
		}
	})
}
