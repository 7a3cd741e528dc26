package argocd

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	"sigs.k8s.io/yaml"
)

// trackingAnnotation is what Argo CD adds to every object it will apply
// when it tracks resources by annotation (the default since 2.x).
const trackingAnnotation = "argocd.argoproj.io/tracking-id"

// TestApplicationsBuildWhatKarpgenBuilds: for every environment of the
// repository's profiles (Karpenter 1.2 and 1.14 among them), the plugin
// source of the Application karpgen generated, given to the repo-server
// as the application controller gives it, yields the objects `karpgen
// build ENV` prints, byte for byte as JSON, plus Argo CD's tracking
// annotation and nothing else.
func TestApplicationsBuildWhatKarpgenBuilds(t *testing.T) {
	repo := newRepo(t, "profiles", "out")
	c := world.client(t, controllerTimeout)
	for _, env := range []string{"dev", "staging", "prod"} {
		t.Run(env, func(t *testing.T) {
			app := generatedApplication(t, env)
			var src *v1alpha1.ApplicationSource
			for _, s := range app.Spec.Sources {
				if s.Plugin != nil {
					src = &s
				}
			}
			if src == nil || src.Plugin.Name != "karpgen-v1" || src.Path != "." {
				t.Fatalf("out/%s/argocd-application.yaml has no source of plugin karpgen-v1 at path .: %+v", env, app.Spec.Sources)
			}
			res, err := c.GenerateManifest(context.Background(), request(repo, "main", app.Name, *src))
			if err != nil {
				t.Fatal(err)
			}
			if res.SourceType != "Plugin" {
				t.Errorf("source type %q, want Plugin", res.SourceType)
			}
			got := untracked(t, app.Name, res.Manifests)
			if want := built(t, repo, env); strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("Argo CD would apply\n%s\nkarpgen build %s prints\n%s", strings.Join(got, "\n"), env, strings.Join(want, "\n"))
			}
		})
	}
}

// TestDiscovery: with no plugin named, the repo-server asks every
// sidecar's discover command; karpgen's claims a repository with
// profiles and no other, so a folder of plain manifests, or CUE outside
// profiles/, stays Argo CD's own directory source.
func TestDiscovery(t *testing.T) {
	c := world.client(t, controllerTimeout)
	repo := newRepo(t, "profiles")
	env := v1alpha1.ApplicationSource{Path: ".", Plugin: &v1alpha1.ApplicationSourcePlugin{Env: v1alpha1.Env{{Name: "KARPGEN_ENV", Value: "dev"}}}}
	res, err := c.GenerateManifest(context.Background(), request(repo, "main", "karpenter-dev", env))
	if err != nil {
		t.Fatal(err)
	}
	if res.SourceType != "Plugin" || strings.Join(untracked(t, "karpenter-dev", res.Manifests), "\n") != strings.Join(built(t, repo, "dev"), "\n") {
		t.Errorf("discovered: source type %q, manifests %v", res.SourceType, res.Manifests)
	}

	plain := newRepo(t)
	for rel, data := range map[string]string{
		"configmap.yaml":     "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: plain\n",
		"profiles/README.md": "not a profile\n",
		"cue/profile.cue":    "package profiles\n",
	} {
		if err := plain.write(rel, data); err != nil {
			t.Fatal(err)
		}
	}
	plain.commit("plain manifests")
	res, err = c.GenerateManifest(context.Background(), request(plain, "main", "plain", v1alpha1.ApplicationSource{Path: "."}))
	if err != nil {
		t.Fatal(err)
	}
	if res.SourceType != "Directory" || len(res.Manifests) != 1 || !strings.Contains(res.Manifests[0], `"name":"plain"`) {
		t.Errorf("a repository without profiles: source type %q, manifests %v", res.SourceType, res.Manifests)
	}
	// Asked for a plugin by its environment alone, no sidecar claims it.
	_, err = c.GenerateManifest(context.Background(), request(plain, "main", "plain", env))
	if err == nil || !strings.Contains(err.Error(), `could not find plugin supporting the given repository`) {
		t.Errorf("plugin discovery in a repository without profiles: %v", err)
	}
}

// TestEnvironmentChoice: the plugin env KARPGEN_ENV, else the parameter
// env, else the Application's name picks the environment; a value that
// looks like a path or a flag names an environment that does not exist,
// never a folder or an option, and Argo CD shows karpgen's message.
func TestEnvironmentChoice(t *testing.T) {
	c := world.client(t, controllerTimeout)
	repo := newRepo(t, "profiles")
	param := func(name, value string) v1alpha1.ApplicationSourcePluginParameters {
		return v1alpha1.ApplicationSourcePluginParameters{{Name: name, String_: &value}}
	}
	for _, tc := range []struct {
		name, app string
		plugin    v1alpha1.ApplicationSourcePlugin
		want      string // environment built, or the error karpgen prints
	}{
		{"plugin env", "karpenter-dev", v1alpha1.ApplicationSourcePlugin{Env: v1alpha1.Env{{Name: "KARPGEN_ENV", Value: "staging"}}}, "staging"},
		{"parameter", "karpenter-x", v1alpha1.ApplicationSourcePlugin{Parameters: param("env", "prod")}, "prod"},
		{"plugin env over parameter", "karpenter-x", v1alpha1.ApplicationSourcePlugin{Env: v1alpha1.Env{{Name: "KARPGEN_ENV", Value: "dev"}}, Parameters: param("env", "prod")}, "dev"},
		{"application name", "dev", v1alpha1.ApplicationSourcePlugin{}, "dev"},
		{"path", "x", v1alpha1.ApplicationSourcePlugin{Env: v1alpha1.Env{{Name: "KARPGEN_ENV", Value: "../../../../etc"}}},
			`karpgen: no environment "../../../../etc" in the profiles (known: dev, prod, staging)`},
		{"absolute path", "x", v1alpha1.ApplicationSourcePlugin{Parameters: param("env", "/etc/passwd")},
			`karpgen: no environment "/etc/passwd" in the profiles (known: dev, prod, staging)`},
		{"flag", "x", v1alpha1.ApplicationSourcePlugin{Env: v1alpha1.Env{{Name: "KARPGEN_ENV", Value: "--profiles=/etc"}}},
			`karpgen: no environment "--profiles=/etc" in the profiles (known: dev, prod, staging)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.plugin.Name = "karpgen-v1"
			res, err := c.GenerateManifest(context.Background(), request(repo, "main", tc.app, v1alpha1.ApplicationSource{Path: ".", Plugin: &tc.plugin}))
			if strings.HasPrefix(tc.want, "karpgen:") {
				if err == nil || !strings.Contains(err.Error(), tc.want) {
					t.Errorf("error %v, want one holding %q", err, tc.want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got, want := untracked(t, tc.app, res.Manifests), built(t, repo, tc.want); strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("got\n%s\nwant the objects of %s", strings.Join(got, "\n"), tc.want)
			}
		})
	}

	// A source path outside the checkout is Argo CD's to refuse, before
	// any plugin runs.
	_, err := c.GenerateManifest(context.Background(), request(repo, "main", "dev", v1alpha1.ApplicationSource{Path: "../..", Plugin: &v1alpha1.ApplicationSourcePlugin{Name: "karpgen-v1"}}))
	if err == nil || !strings.Contains(err.Error(), "../..: app path outside root") {
		t.Errorf("source path ../..: %v", err)
	}
	// So is a profile that links out of the repository.
	link := newRepo(t, "profiles")
	if err := os.Symlink("/etc/hostname", filepath.Join(link.dir, "profiles", "host.cue")); err != nil {
		t.Fatal(err)
	}
	link.commit("a link out of the repository")
	_, err = c.GenerateManifest(context.Background(), request(link, "main", "dev", v1alpha1.ApplicationSource{Path: ".", Plugin: &v1alpha1.ApplicationSourcePlugin{Name: "karpgen-v1"}}))
	if err == nil || !strings.Contains(err.Error(), "repository contains out-of-bounds symlinks. file: profiles/host.cue") {
		t.Errorf("a profile linking out of the repository: %v", err)
	}
}

// TestRefusalReachesArgoCD: a revision whose profile vet refuses is the
// comparison error Argo CD shows, with every line karpgen printed, and the
// previous revision still builds.
func TestRefusalReachesArgoCD(t *testing.T) {
	c := world.client(t, controllerTimeout)
	repo := newRepo(t, "profiles")
	good := strings.TrimSpace(repo.git("-C", repo.dir, "rev-parse", "HEAD"))
	data, err := os.ReadFile(filepath.Join(repo.dir, "profiles", "base.cue"))
	if err != nil {
		t.Fatal(err)
	}
	const zone = `"ap-northeast-2a"`
	if !bytes.Contains(data, []byte(zone)) {
		t.Fatalf("profiles/base.cue names no zone %s", zone)
	}
	if err := repo.write("profiles/base.cue", strings.Replace(string(data), zone, `"us-east-1a"`, 1)); err != nil {
		t.Fatal(err)
	}
	bad := repo.commit("a zone of another region")
	cmd := exec.Command(world.karpgen, "build", "dev")
	cmd.Dir = repo.dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err == nil {
		t.Fatal("karpgen build dev accepts a zone of another region")
	}
	src := v1alpha1.ApplicationSource{Path: ".", Plugin: &v1alpha1.ApplicationSourcePlugin{Name: "karpgen-v1", Env: v1alpha1.Env{{Name: "KARPGEN_ENV", Value: "dev"}}}}
	_, err = c.GenerateManifest(context.Background(), request(repo, bad, "karpenter-dev", src))
	if err == nil {
		t.Fatal("Argo CD built a revision karpgen refuses")
	}
	for _, line := range strings.Split(strings.TrimSpace(stderr.String()), "\n") {
		if !strings.Contains(err.Error(), line) {
			t.Errorf("Argo CD's error lacks karpgen's line %q:\n%v", line, err)
		}
	}
	if _, err := c.GenerateManifest(context.Background(), request(repo, good, "karpenter-dev", src)); err != nil {
		t.Errorf("the revision before: %v", err)
	}
}

// TestTimeout: when a profile evaluates for longer than the controller
// waits, the repo-server's deadline reaches the cmp-server, which ends
// karpgen just before it; nothing of it is left running. At the deadline
// the cmp-server signals karpgen twice at once: exec.CommandContext's
// SIGKILL to the process and its own SIGTERM to the process group, so
// Argo CD shows "signal: killed" or "signal: terminated", whichever the
// kernel delivers first. (Under the controller's default of 60s,
// karpgen's own --eval-timeout of 45s in plugin.yaml ends it first, with
// its own message.)
func TestTimeout(t *testing.T) {
	repo := newRepo(t)
	if err := repo.write("profiles/slow.jsonnet", "local spin(n) = if n == 0 then {} else spin(n - 1) tailstrict;\n{ environments: spin(1000000000) }\n"); err != nil {
		t.Fatal(err)
	}
	repo.commit("a profile that does not finish")
	const timeout = 3
	c := world.client(t, timeout)
	src := v1alpha1.ApplicationSource{Path: ".", Plugin: &v1alpha1.ApplicationSourcePlugin{Name: "karpgen-v1", Env: v1alpha1.Env{{Name: "KARPGEN_ENV", Value: "dev"}}}}
	began := time.Now()
	_, err := c.GenerateManifest(context.Background(), request(repo, "main", "karpenter-dev", src))
	if err == nil || !strings.Contains(err.Error(), "karpgen build") ||
		!strings.Contains(err.Error(), "failed signal: killed") && !strings.Contains(err.Error(), "failed signal: terminated") {
		t.Fatalf("error %v, want karpgen killed at the controller's deadline", err)
	}
	if took := time.Since(began); took > 2*timeout*time.Second {
		t.Errorf("the request took %s against a deadline of %ds", took, timeout)
	}
	// The cmp-server sends SIGTERM and SIGKILL at the deadline and SIGKILL
	// to the process group 5s later.
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		left := running(world.karpgen)
		if len(left) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("karpgen still runs after the deadline: pids %v", left)
		}
	}
}

// generatedApplication reads the Application of out/ENV/argocd-application.yaml
// with Argo CD's own types.
func generatedApplication(t *testing.T, env string) v1alpha1.Application {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(world.root, "out", env, "argocd-application.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, doc := range strings.Split(string(data), "\n---\n") {
		var kind struct{ Kind string }
		if err := yaml.Unmarshal([]byte(doc), &kind); err != nil || kind.Kind != "Application" {
			continue
		}
		var app v1alpha1.Application
		if err := yaml.UnmarshalStrict([]byte(doc), &app); err != nil {
			t.Fatalf("out/%s/argocd-application.yaml: %v", env, err)
		}
		return app
	}
	t.Fatalf("out/%s/argocd-application.yaml holds no Application", env)
	return v1alpha1.Application{}
}

// built is what `karpgen build ENV` prints in the repository, one JSON
// object per line.
func built(t *testing.T, r *gitRepo, env string) []string {
	t.Helper()
	cmd := exec.Command(world.karpgen, "build", env)
	cmd.Dir = r.dir
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("karpgen build %s: %v", env, err)
	}
	var objs []string
	for _, doc := range strings.Split(string(out), "\n---\n") {
		j, err := yaml.YAMLToJSON([]byte(doc))
		if err != nil {
			t.Fatal(err)
		}
		objs = append(objs, string(j))
	}
	return objs
}

// untracked takes Argo CD's tracking annotation off each manifest, after
// checking it names the Application and the object, and gives the rest
// in the JSON encoding `built` uses.
func untracked(t *testing.T, app string, manifests []string) []string {
	t.Helper()
	var objs []string
	for _, m := range manifests {
		var o map[string]any
		if err := json.Unmarshal([]byte(m), &o); err != nil {
			t.Fatal(err)
		}
		meta, _ := o["metadata"].(map[string]any)
		ann, _ := meta["annotations"].(map[string]any)
		id, _ := ann[trackingAnnotation].(string)
		group, _, grouped := strings.Cut(o["apiVersion"].(string), "/")
		if !grouped {
			group = ""
		}
		// The objects are cluster-scoped; Argo CD names the destination
		// namespace in their id all the same.
		if want := app + ":" + group + "/" + o["kind"].(string) + ":karpenter/" + meta["name"].(string); id != want {
			t.Errorf("tracking id %q, want %q", id, want)
		}
		delete(ann, trackingAnnotation)
		if len(ann) == 0 {
			delete(meta, "annotations")
		}
		j, err := json.Marshal(o)
		if err != nil {
			t.Fatal(err)
		}
		objs = append(objs, string(j))
	}
	return objs
}

// running lists the processes whose executable is path.
func running(path string) []string {
	var pids []string
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		if exe, err := os.Readlink(filepath.Join("/proc", e.Name(), "exe")); err == nil && exe == path {
			pids = append(pids, e.Name())
		}
	}
	return pids
}
