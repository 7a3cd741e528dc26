package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"sigs.k8s.io/yaml"
)

// cmpPlugin is the part of deploy/argocd/plugin.yaml the harness runs.
type cmpPlugin struct {
	Metadata struct{ Name string }
	Spec     struct {
		Version  string
		Generate struct{ Command, Args []string }
		Discover struct {
			Find struct{ Command []string }
		}
	}
}

// cmpHarness runs the plugin the way argocd-cmp-server does: in a fresh
// read-only copy of the repository, as user 999 (when the tests run as
// root), with the environment variables Argo CD sets.
type cmpHarness struct {
	t      *testing.T
	bin    string
	plugin cmpPlugin
}

func newCMPHarness(t *testing.T) *cmpHarness {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the karpgen binary")
	}
	data, err := os.ReadFile(filepath.Join("..", "..", "deploy", "argocd", "plugin.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	h := &cmpHarness{t: t}
	if err := yaml.Unmarshal(data, &h.plugin); err != nil {
		t.Fatal(err)
	}
	if got := h.plugin.Metadata.Name + "-" + h.plugin.Spec.Version; got != "karpgen-v1" {
		t.Fatalf("plugin is %s; Applications refer to karpgen-v1", got)
	}
	h.bin = openDir(t, t.TempDir())
	build := exec.Command("go", "build", "-o", filepath.Join(h.bin, "karpgen"), ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return h
}

// openDir makes a test folder (and its parents) traversable by user 999.
func openDir(t *testing.T, dir string) string {
	for d := dir; d != "/" && d != "."; d = filepath.Dir(d) {
		if strings.HasPrefix(d, os.TempDir()) && d != os.TempDir() {
			os.Chmod(d, 0o755)
		}
	}
	return dir
}

// repo copies the repository's profiles into a fresh read-only folder.
func (h *cmpHarness) repo() string {
	dir := filepath.Join(openDir(h.t, h.t.TempDir()), "repo")
	src := filepath.Join("..", "..", "profiles")
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		dst := filepath.Join(dir, "profiles", rel)
		if d.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(dst, data, 0o444)
	})
	if err != nil {
		h.t.Fatal(err)
	}
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			os.Chmod(p, 0o555)
		}
		return nil
	})
	h.t.Cleanup(func() {
		filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
			if err == nil && d.IsDir() {
				os.Chmod(p, 0o755)
			}
			return nil
		})
	})
	return dir
}

// run runs one of the plugin's commands in dir with the given variables.
func (h *cmpHarness) run(dir string, command []string, vars map[string]string) (stdout, stderr string, err error) {
	cmd := exec.Command(command[0], command[1:]...)
	// The sidecar finds karpgen on its own PATH, not the test's.
	if p := filepath.Join(h.bin, command[0]); !strings.Contains(command[0], "/") {
		if _, err := os.Stat(p); err == nil {
			cmd.Path, cmd.Err = p, nil
		}
	}
	cmd.Dir = dir
	cmd.Env = []string{"PATH=" + h.bin, "HOME=/nonexistent", "KUBE_VERSION=1.32", "KUBE_API_VERSIONS=v1,apps/v1,karpenter.sh/v1,karpenter.k8s.aws/v1", "ARGOCD_APP_NAMESPACE=karpenter"}
	for k, v := range vars {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	if os.Geteuid() == 0 {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 999, Gid: 999}}
	}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err = cmd.Run()
	return out.String(), errb.String(), err
}

func (h *cmpHarness) generate(dir string, vars map[string]string) (string, string, error) {
	g := h.plugin.Spec.Generate
	return h.run(dir, append(append([]string(nil), g.Command...), g.Args...), vars)
}

// TestCMPGenerate: the plugin's generate command prints the environment's
// objects on stdout with an empty stderr, picks the environment from the
// plugin env or else the Application name, is deterministic, and fails
// clearly, with no stdout, for an unknown environment.
func TestCMPGenerate(t *testing.T) {
	h := newCMPHarness(t)
	repo := h.repo()

	out, stderr, err := h.generate(repo, map[string]string{"ARGOCD_APP_NAME": "karpenter-dev", "ARGOCD_ENV_KARPGEN_ENV": "dev"})
	if err != nil || stderr != "" {
		t.Fatalf("generate: %v\nstderr: %s", err, stderr)
	}
	kinds := kindsOf(t, out)
	if strings.Join(kinds, ",") != "EC2NodeClass/default,NodePool/app" {
		t.Errorf("objects %v, want EC2NodeClass/default and NodePool/app", kinds)
	}
	if !strings.Contains(out, "karpenter.sh/discovery: ws-dev") {
		t.Errorf("dev objects do not name ws-dev:\n%s", out)
	}
	again, _, _ := h.generate(h.repo(), map[string]string{"ARGOCD_APP_NAME": "karpenter-dev", "ARGOCD_ENV_KARPGEN_ENV": "dev"})
	if again != out {
		t.Errorf("two runs on the same revision differ")
	}

	// Without the plugin env, the Application name is the environment.
	out, stderr, err = h.generate(repo, map[string]string{"ARGOCD_APP_NAME": "prod"})
	if err != nil || stderr != "" || !strings.Contains(out, "karpenter.sh/discovery: ws-prod") {
		t.Errorf("fallback to the Application name: %v\nstderr: %s\n%s", err, stderr, out)
	}

	out, stderr, err = h.generate(repo, map[string]string{"ARGOCD_APP_NAME": "karpenter-qa", "ARGOCD_ENV_KARPGEN_ENV": "qa"})
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() == 0 {
		t.Errorf("unknown environment: err %v", err)
	}
	if out != "" || !strings.Contains(stderr, `no environment "qa" in the profiles (known: dev, prod, staging)`) {
		t.Errorf("unknown environment: stdout %q, stderr %q", out, stderr)
	}
}

// TestCMPDiscover: the plugin claims repositories with profiles and only those.
func TestCMPDiscover(t *testing.T) {
	h := newCMPHarness(t)
	out, _, err := h.run(h.repo(), h.plugin.Spec.Discover.Find.Command, nil)
	if err != nil || strings.TrimSpace(out) == "" {
		t.Errorf("discover in a repository with profiles: %v %q", err, out)
	}
	out, _, _ = h.run(openDir(t, t.TempDir()), h.plugin.Spec.Discover.Find.Command, nil)
	if strings.TrimSpace(out) != "" {
		t.Errorf("discover in an empty repository found %q", out)
	}
}

func kindsOf(t *testing.T, stream string) []string {
	var kinds []string
	for _, doc := range strings.Split(stream, "\n---\n") {
		var o struct {
			APIVersion string `json:"apiVersion"`
			Kind       string `json:"kind"`
			Metadata   struct{ Name string }
		}
		if err := yaml.Unmarshal([]byte(doc), &o); err != nil {
			t.Fatalf("stdout is not YAML objects: %v\n%s", err, doc)
		}
		if o.APIVersion == "" || o.Kind == "" || o.Metadata.Name == "" {
			t.Fatalf("stdout holds something that is not a Kubernetes object:\n%s", doc)
		}
		kinds = append(kinds, o.Kind+"/"+o.Metadata.Name)
	}
	return kinds
}
