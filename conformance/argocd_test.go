package conformance

import (
	"archive/zip"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/karpgen/karpgen/generators"
	"github.com/karpgen/karpgen/internal/facts"
	"github.com/karpgen/karpgen/internal/model"
	"github.com/karpgen/karpgen/internal/oracle"
	"github.com/karpgen/karpgen/internal/output"
	"github.com/karpgen/karpgen/internal/profile"
)

// argoCRD loads one of Argo CD's CRDs kept in reference/argocd, after
// checking it against the SOURCE file's checksums.
func argoCRD(t *testing.T, name string) *crd {
	t.Helper()
	dir := filepath.Join(oracle.Root(), "reference", "argocd")
	data, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		oracle.Missing(t, "Argo CD CRD: %v", err)
	}
	source, err := os.ReadFile(filepath.Join(dir, "SOURCE"))
	if err != nil {
		t.Fatal(err)
	}
	if want := fmt.Sprintf("%x  %s", sha256.Sum256(data), name); !strings.Contains(string(source), want) {
		t.Fatalf("reference/argocd/%s does not match its SOURCE checksum", name)
	}
	return loadCRD(t, filepath.Join(dir, name))
}

// groupKind is an object's "group/Kind".
func groupKind(o map[string]any) string {
	api, _ := o["apiVersion"].(string)
	group := ""
	if g, _, ok := strings.Cut(api, "/"); ok {
		group = g
	}
	return group + "/" + o["kind"].(string)
}

// TestAppProjectMatchesWhatTheApplicationDeploys: for every minor, the
// AppProject karpgen writes is accepted by Argo CD's CRD, so is the
// Application, and the project allows exactly the kinds and namespaces
// of what the Application deploys: the minor's chart rendered with the
// bundle's values, the CRDs, the namespace Argo CD creates, and the
// bundle's own objects as kustomize builds them.
func TestAppProjectMatchesWhatTheApplicationDeploys(t *testing.T) {
	oracle.Dir(t)
	projectCRD, appCRD := argoCRD(t, "appproject-crd.yaml"), argoCRD(t, "application-crd.yaml")
	for _, v := range matrix() {
		if v.auth != profile.AuthPodIdentity || !v.queue {
			continue
		}
		t.Run(v.minor.Minor, func(t *testing.T) {
			p := richProfile(v)
			p.ArgoCD = &profile.ArgoCD{RepoURL: "https://git.example.com/platform.git", TargetRevision: "main", Path: ".", Namespace: "argocd"}
			p.ArgoCD.Destination.Name = p.Cluster.Name
			e := model.Resolve(p)
			b, err := generators.Render(e)
			if err != nil {
				t.Fatal(err)
			}
			docs := objects(t, b.Files["argocd-application.yaml"])
			if len(docs) != 2 || docs[0]["kind"] != "AppProject" || docs[1]["kind"] != "Application" {
				t.Fatalf("argocd-application.yaml holds %d objects", len(docs))
			}
			project, app := docs[0], docs[1]
			if problems := projectCRD.validate(project); len(problems) > 0 {
				t.Errorf("Argo CD's CRD refuses the AppProject: %v", problems)
			}
			if problems := appCRD.validate(app); len(problems) > 0 {
				t.Errorf("Argo CD's CRD refuses the Application: %v", problems)
			}
			if get(app, "spec", "project") != get(project, "metadata", "name") {
				t.Errorf("the Application's project %v is not the AppProject %v", get(app, "spec", "project"), get(project, "metadata", "name"))
			}

			cluster := map[string]bool{"apiextensions.k8s.io/CustomResourceDefinition": true, "/Namespace": true}
			namespaced, namespaces := map[string]bool{}, map[string]bool{}
			add := func(o map[string]any, ns string) {
				if ns == "" {
					cluster[groupKind(o)] = true
					return
				}
				namespaced[groupKind(o)], namespaces[ns] = true, true
			}
			for _, objs := range renderChart(t, loadChart(t, v.minor), b.Files["helm/karpenter-values.yaml"], e.Names.Namespace) {
				for _, o := range objs {
					ns, _ := get(o, "metadata", "namespace").(string)
					add(o, ns)
				}
			}
			stream, err := output.BuildBundle(b, "")
			if err != nil {
				t.Fatal(err)
			}
			for _, o := range objects(t, stream) {
				ns, _ := get(o, "metadata", "namespace").(string)
				add(o, ns)
			}
			list := func(field string) []string {
				var out []string
				items, _ := get(project, "spec", field).([]any)
				for _, it := range items {
					m := it.(map[string]any)
					if field == "destinations" {
						out = append(out, m["namespace"].(string))
						continue
					}
					out = append(out, m["group"].(string)+"/"+m["kind"].(string))
				}
				return out
			}
			for _, c := range []struct {
				field string
				want  map[string]bool
			}{
				{"clusterResourceWhitelist", cluster},
				{"namespaceResourceWhitelist", namespaced},
				{"destinations", namespaces},
			} {
				if got, want := list(c.field), slices.Sorted(maps.Keys(c.want)); !slices.Equal(got, want) {
					t.Errorf("%s:\n got %v\nwant %v", c.field, got, want)
				}
			}
		})
	}
}

// argoModuleFile reads a file of Argo CD's module at the version
// reference/argocd/SOURCE names, from the zip `go mod download` fetches
// (make module-zips), its hash held to SOURCE.
func argoModuleFile(t *testing.T, name string) []byte {
	t.Helper()
	m := argoModule()
	switch {
	case m.err != nil:
		t.Fatal(m.err)
	case m.zip == "":
		oracle.Missing(t, "the module zip of %s is not downloaded (make module-zips): %s", m.module, m.missing)
	}
	z, err := zip.OpenReader(m.zip)
	if err != nil {
		t.Fatal(err)
	}
	defer z.Close()
	data, err := fs.ReadFile(z, m.module+"/"+name)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// argoModule finds the zip of Argo CD's module once for the tests that
// read it: go mod download is asked once, not for every file.
var argoModule = sync.OnceValue(func() (m struct {
	module, zip, missing string
	err                  error
}) {
	source, err := os.ReadFile(filepath.Join(oracle.Root(), "reference", "argocd", "SOURCE"))
	if err != nil {
		m.err = err
		return m
	}
	var sum string
	for _, line := range strings.Split(string(source), "\n") {
		if f := strings.Fields(line); len(f) == 3 && f[0] == "module" {
			m.module, sum = f[1], f[2]
		}
	}
	cmd := exec.Command("go", "mod", "download", "-json", m.module)
	cmd.Env = append(os.Environ(), "GOTOOLCHAIN=local", "GOFLAGS=-mod=mod")
	out, _ := cmd.Output()
	var d struct{ Zip, Sum string }
	if err := json.Unmarshal(out, &d); err != nil || d.Zip == "" {
		m.missing = string(out)
		return m
	}
	if d.Sum != sum {
		m.err = fmt.Errorf("%s: the zip's hash is %s, SOURCE says %s", m.module, d.Sum, sum)
		return m
	}
	m.zip = d.Zip
	return m
})

// argoModuleCRD loads a CRD of Argo CD's module: the ApplicationSet CRD
// is a megabyte, not kept in the repository.
func argoModuleCRD(t *testing.T, name string) *crd {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, argoModuleFile(t, "manifests/crds/"+name), 0o644); err != nil {
		t.Fatal(err)
	}
	return loadCRD(t, path)
}

// TestArgoCDFleetAndDelivery: every form of the argocd section
// (Applications or one ApplicationSet, the plugin or the rendered out/,
// a destination by name or by server, Karpenter 1.0's conversion webhook
// or not, the charts from a Helm repository or native oci:// sources) writes objects Argo CD's CRDs accept; an environment is in its
// own file or in the ApplicationSet, never both; and the rendered
// delivery's objects come from out/<env> with no plugin.
func TestArgoCDFleetAndDelivery(t *testing.T) {
	oracle.Dir(t)
	projectCRD, appCRD, setCRD := argoCRD(t, "appproject-crd.yaml"), argoCRD(t, "application-crd.yaml"), argoModuleCRD(t, "applicationset-crd.yaml")
	var envs []*model.Env
	for i, minor := range []*facts.Minor{facts.Oldest(), facts.Newest()} {
		for _, delivery := range []string{"plugin", "rendered"} {
			for _, fleet := range []string{"applications", "applicationSet"} {
				p := richProfile(variant{minor, profile.AuthPodIdentity, true})
				p.Env = fmt.Sprintf("%s-%s-%d", delivery, strings.ToLower(fleet), i)
				charts := []string{"helm", "oci"}[i]
				p.ArgoCD = &profile.ArgoCD{RepoURL: "https://git.example.com/platform.git", TargetRevision: "main", Path: "gitops", Namespace: "argocd",
					Delivery: delivery, Fleet: fleet, Charts: charts}
				if i == 0 {
					p.ArgoCD.Destination.Server = "https://prod.example.com:6443"
				} else {
					p.ArgoCD.Destination.Name = p.Cluster.Name
				}
				envs = append(envs, model.Resolve(p))
			}
		}
	}
	r := generators.NewRenderer()
	inSet := 0
	for _, e := range envs {
		b, err := r.Render(e)
		if err != nil {
			t.Fatal(err)
		}
		file, own := b.Files[model.FileApplication]
		if own == e.Application.InSet {
			t.Errorf("%s: fleet %s, and its own Application file: %v", e.Name, e.Profile.ArgoCD.Fleet, own)
		}
		if e.Application.InSet {
			inSet++
			continue
		}
		for _, o := range objects(t, file) {
			c := appCRD
			if o["kind"] == "AppProject" {
				c = projectCRD
			}
			if problems := c.validate(o); len(problems) > 0 {
				t.Errorf("%s: Argo CD's CRD refuses the %s: %v", e.Name, o["kind"], problems)
			}
			if o["kind"] == "Application" {
				checkObjectsSource(t, e, o)
				checkChartSources(t, e, o)
			}
		}
	}
	set := r.FleetFiles(envs)[generators.ApplicationSetFile]
	var sets, projects int
	for _, o := range objects(t, set) {
		switch o["kind"] {
		case "ApplicationSet":
			sets++
			if problems := setCRD.validate(o); len(problems) > 0 {
				t.Errorf("Argo CD's CRD refuses the ApplicationSet: %v", problems)
			}
			elements := get(o, "spec", "generators").([]any)[0].(map[string]any)["list"].(map[string]any)["elements"].([]any)
			if len(elements) != inSet {
				t.Errorf("the ApplicationSet has %d elements, %d environments say applicationSet", len(elements), inSet)
			}
			for _, el := range elements {
				el := el.(map[string]any)
				app := map[string]any{"apiVersion": "argoproj.io/v1alpha1", "kind": "Application",
					"metadata": map[string]any{"name": el["name"], "namespace": "argocd"}, "spec": el["spec"]}
				if problems := appCRD.validate(app); len(problems) > 0 {
					t.Errorf("%v: Argo CD's CRD refuses the Application the ApplicationSet makes: %v", el["name"], problems)
				}
			}
		case "AppProject":
			projects++
			if problems := projectCRD.validate(o); len(problems) > 0 {
				t.Errorf("Argo CD's CRD refuses the AppProject: %v", problems)
			}
		}
	}
	if sets != 1 || projects != inSet {
		t.Errorf("out/%s holds %d ApplicationSets and %d AppProjects, for %d environments", generators.ApplicationSetFile, sets, projects, inSet)
	}
}

// checkObjectsSource holds an Application's last source to its
// delivery: the plugin over the repository, or out/<env> with none.
func checkObjectsSource(t *testing.T, e *model.Env, app map[string]any) {
	t.Helper()
	sources := get(app, "spec", "sources").([]any)
	last := sources[len(sources)-1].(map[string]any)
	_, plugin := last["plugin"]
	switch e.Profile.ArgoCD.Delivery {
	case "rendered":
		if plugin || last["path"] != "gitops/out/"+e.Name {
			t.Errorf("%s: rendered delivery's objects source is %v", e.Name, last)
		}
	default:
		if !plugin || last["path"] != "gitops" {
			t.Errorf("%s: the plugin's source is %v", e.Name, last)
		}
	}
}

// checkChartSources holds an Application's chart sources to its charts
// form: the registry as a Helm repository naming the chart, or each
// chart's own oci:// repository at path ".".
func checkChartSources(t *testing.T, e *model.Env, app map[string]any) {
	t.Helper()
	sources := get(app, "spec", "sources").([]any)
	for i, chart := range []string{"karpenter-crd", "karpenter"} {
		src := sources[i].(map[string]any)
		want := map[string]any{"repoURL": "public.ecr.aws/karpenter", "chart": chart}
		if e.Profile.ArgoCD.Charts == "oci" {
			want = map[string]any{"repoURL": "oci://public.ecr.aws/karpenter/" + chart, "path": "."}
		}
		for k, v := range want {
			if src[k] != v {
				t.Errorf("%s: chart source %d has %s %v, want %v", e.Name, i, k, src[k], v)
			}
		}
		if _, named := src["chart"]; named && e.Profile.ArgoCD.Charts == "oci" {
			t.Errorf("%s: a native oci:// source names a chart: %v", e.Name, src)
		}
	}
}
