package output_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/karpgen/karpgen/generators"
	"github.com/karpgen/karpgen/internal/output"
)

func bundle(env string, files map[string]string) *generators.Bundle {
	b := &generators.Bundle{Env: env, Files: map[string][]byte{}}
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
	var w bytes.Buffer
	differs, err := output.DiffBundle(&w, out, bundle("dev", map[string]string{"a.yaml": "one\ntwo\n"}))
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
	if _, err := output.DiffBundle(&w, "out", bundle("dev", map[string]string{"new.json": "[]"})); err != nil {
		t.Fatal(err)
	}
	// "out" is relative and does not exist here: only the new file shows.
	want := "diff out/dev/new.json\n--- /dev/null\n+++ b/out/dev/new.json\n@@ -0,0 +1 @@\n+[]\n\\ No newline at end of file\n"
	if w.String() != want {
		t.Errorf("diff:\n%q\nwant\n%q", w.String(), want)
	}
	w.Reset()
	if _, err := output.DiffBundle(&w, out, bundle("dev", nil)); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(w.String(), "+++ /dev/null\n@@ -1 +0,0 @@\n-{}\n") {
		t.Errorf("removed file:\n%s", w.String())
	}
}

func TestDiskSink(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	var stdout, stderr bytes.Buffer
	disk, err := output.NewDisk(out, []string{"dev", "prod"}, &stdout, &stderr)
	if err != nil {
		t.Fatal(err)
	}
	b := bundle("dev", map[string]string{"a.yaml": "a\n", "iam/b.json": "{}\n"})
	if err := disk.Put(b); err != nil {
		t.Fatal(err)
	}
	if err := disk.Finish(map[string][]byte{generators.ApplicationSetFile: []byte("set\n")}); err != nil {
		t.Fatal(err)
	}
	o := filepath.ToSlash(out)
	if want := o + "/dev: written (2 files)\n" + o + "/argocd-applicationset.yaml: written\n"; stdout.String() != want {
		t.Errorf("stdout:\n%s\nwant:\n%s", stdout.String(), want)
	}
	files, err := output.ReadDir(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 3 || string(files["dev/iam/b.json"]) != "{}\n" || string(files["argocd-applicationset.yaml"]) != "set\n" {
		t.Errorf("out/ holds %v", files)
	}

	// The same bundle again changes nothing; the fleet file goes when no
	// environment has an Application; a folder of no environment is named.
	write(t, filepath.Join(out, "old", "x"), "x")
	stdout.Reset()
	disk, _ = output.NewDisk(out, []string{"dev", "prod"}, &stdout, &stderr)
	if err := disk.Put(b); err != nil {
		t.Fatal(err)
	}
	if err := disk.Finish(map[string][]byte{}); err != nil {
		t.Fatal(err)
	}
	if want := o + "/dev: unchanged\n" + o + "/argocd-applicationset.yaml: removed\n"; stdout.String() != want {
		t.Errorf("stdout:\n%s\nwant:\n%s", stdout.String(), want)
	}
	if want := "karpgen: " + o + "/old belongs to no environment of the profiles; remove it if it is stale\n"; stderr.String() != want {
		t.Errorf("stderr %q, want %q", stderr.String(), want)
	}
	entries, _ := os.ReadDir(out)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".karpgen-") {
			t.Errorf("leftover %s", e.Name())
		}
	}
}

func TestCheckSink(t *testing.T) {
	out := t.TempDir()
	write(t, filepath.Join(out, "dev", "a.yaml"), "a\n")
	var w bytes.Buffer
	c := &output.Check{Dir: out, Stdout: &w}
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

	write(t, filepath.Join(overlays, "dev", "kustomization.yaml"), "commonLabels:\n  team: a\n")
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
