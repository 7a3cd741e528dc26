package conformance

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"
	"sigs.k8s.io/yaml"

	"github.com/karpgen/karpgen/generators"
	"github.com/karpgen/karpgen/internal/model"
	"github.com/karpgen/karpgen/internal/oracle"
)

// deployFile reads a file of deploy/argocd as one YAML object.
func deployFile(t *testing.T, name string) map[string]any {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(oracle.Root(), "deploy", "argocd", name))
	if err != nil {
		t.Fatal(err)
	}
	var out map[string]any
	if err := yaml.Unmarshal(data, &out); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return out
}

// TestRepoServerPatchFitsArgoCD: the sidecar patch, applied by kustomize
// over the repo-server Deployment of the Argo CD release reference/argocd
// names, adds the karpgen container beside Argo CD's own, and every volume
// it mounts is one the patched Deployment has (var-files and plugins are
// Argo CD's, karpgen-tmp the patch's). The argo-cd Helm chart's values add
// the same container and volume.
func TestRepoServerPatchFitsArgoCD(t *testing.T) {
	deployment := argoModuleFile(t, "manifests/base/repo-server/argocd-repo-server-deployment.yaml")
	patch, err := os.ReadFile(filepath.Join(oracle.Root(), "deploy", "argocd", "repo-server-patch.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	mem := filesys.MakeFsInMemory()
	for name, data := range map[string][]byte{
		"/app/deployment.yaml":    deployment,
		"/app/patch.yaml":         patch,
		"/app/kustomization.yaml": []byte("resources: [deployment.yaml]\npatches: [{path: patch.yaml}]\n"),
	} {
		if err := mem.WriteFile(name, data); err != nil {
			t.Fatal(err)
		}
	}
	res, err := krusty.MakeKustomizer(krusty.MakeDefaultOptions()).Run(mem, "/app")
	if err != nil {
		t.Fatalf("kustomize: %v", err)
	}
	out, err := res.AsYaml()
	if err != nil {
		t.Fatal(err)
	}
	var d struct {
		Spec struct {
			Template struct {
				Spec struct {
					Containers []map[string]any `json:"containers"`
					Volumes    []struct {
						Name string `json:"name"`
					} `json:"volumes"`
				} `json:"spec"`
			} `json:"template"`
		} `json:"spec"`
	}
	if err := yaml.Unmarshal(out, &d); err != nil {
		t.Fatal(err)
	}
	spec := d.Spec.Template.Spec
	var names, volumes []string
	var sidecar map[string]any
	for _, c := range spec.Containers {
		names = append(names, c["name"].(string))
		if c["name"] == "karpgen" {
			sidecar = c
		}
	}
	for _, v := range spec.Volumes {
		volumes = append(volumes, v.Name)
	}
	if sidecar == nil || !slices.Contains(names, "argocd-repo-server") {
		t.Fatalf("the patched repo-server runs %v", names)
	}
	for _, m := range sidecar["volumeMounts"].([]any) {
		if v := m.(map[string]any)["name"].(string); !slices.Contains(volumes, v) {
			t.Errorf("the sidecar mounts %s, which the patched repo-server (volumes %v) has not", v, volumes)
		}
	}
	if !slices.Contains(volumes, "var-files") || !slices.Contains(volumes, "plugins") {
		t.Errorf("Argo CD's repo-server has no var-files or plugins volume: %v", volumes)
	}

	values := deployFile(t, "argocd-helm-values.yaml")["repoServer"].(map[string]any)
	patchSpec := deployFile(t, "repo-server-patch.yaml")["spec"].(map[string]any)["template"].(map[string]any)["spec"].(map[string]any)
	if !reflect.DeepEqual(values["extraContainers"], patchSpec["containers"]) || !reflect.DeepEqual(values["volumes"], patchSpec["volumes"]) {
		t.Errorf("the Helm values' sidecar is not the patch's:\n%v\n%v", values, patchSpec)
	}
}

// TestChartRepositorySecretIsArgoCDs: the repository Secret carries the
// label Argo CD's code selects repository Secrets by, only keys its
// repository code reads, the type it reads as a Helm repository, and the
// URL the generated Applications fetch the charts from.
func TestChartRepositorySecretIsArgoCDs(t *testing.T) {
	common := string(argoModuleFile(t, "common/common.go"))
	reader := string(argoModuleFile(t, "util/db/repository_secrets.go"))
	for _, decl := range []string{`LabelKeySecretType = "argocd.argoproj.io/secret-type"`, `LabelValueSecretTypeRepository = "repository"`} {
		if !strings.Contains(strings.Join(strings.Fields(common), " "), decl) {
			t.Fatalf("Argo CD's common.go no longer declares %s", decl)
		}
	}
	secret := deployFile(t, "karpenter-chart-repository.yaml")
	labels := secret["metadata"].(map[string]any)["labels"].(map[string]any)
	if labels["argocd.argoproj.io/secret-type"] != "repository" {
		t.Errorf("labels %v", labels)
	}
	data := secret["stringData"].(map[string]any)
	for key := range data {
		if !strings.Contains(reader, `Data["`+key+`"]`) && !strings.Contains(reader, `(secretCopy, "`+key+`")`) {
			t.Errorf("Argo CD's repository code reads no key %q", key)
		}
	}
	if data["type"] != "helm" || !strings.Contains(reader, `EqualFold(string(secret.Data["type"]), "helm")`) || data["enableOCI"] != "true" {
		t.Errorf("not a Helm repository with enableOCI: %v", data)
	}
	app := generators.Application(&model.Application{Name: "x", Namespace: "argocd", ChartVersion: "1.15.2", DestinationServer: model.InClusterURL})
	src := app["spec"].(map[string]any)["sources"].([]any)[0].(map[string]any)
	if src["repoURL"] != data["url"] {
		t.Errorf("the Applications fetch the charts from %v, the Secret names %v", src["repoURL"], data["url"])
	}
}

// TestOCIChartRepositorySecretsAreArgoCDs: the native oci:// repository
// Secrets carry Argo CD's repository label, only keys its repository code
// reads, the type it reads as an OCI repository, and exactly the URLs the
// Applications of a profile with charts: "oci" fetch the charts from.
func TestOCIChartRepositorySecretsAreArgoCDs(t *testing.T) {
	reader := string(argoModuleFile(t, "util/db/repository_secrets.go"))
	if !strings.Contains(reader, `EqualFold(string(secret.Data["type"]), "oci")`) {
		t.Fatal("Argo CD's repository code reads no type oci")
	}
	data, err := os.ReadFile(filepath.Join(oracle.Root(), "deploy", "argocd", "karpenter-chart-repository-oci.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var urls []string
	for _, doc := range strings.Split(string(data), "\n---\n") {
		var secret map[string]any
		if err := yaml.Unmarshal([]byte(doc), &secret); err != nil {
			t.Fatal(err)
		}
		if l := secret["metadata"].(map[string]any)["labels"].(map[string]any); l["argocd.argoproj.io/secret-type"] != "repository" {
			t.Errorf("labels %v", l)
		}
		fields := secret["stringData"].(map[string]any)
		for key := range fields {
			if !strings.Contains(reader, `Data["`+key+`"]`) && !strings.Contains(reader, `(secretCopy, "`+key+`")`) {
				t.Errorf("Argo CD's repository code reads no key %q", key)
			}
		}
		if fields["type"] != "oci" {
			t.Errorf("type %v, want oci", fields["type"])
		}
		urls = append(urls, fields["url"].(string))
	}
	app := generators.Application(&model.Application{Name: "x", Namespace: "argocd", ChartVersion: "1.15.2", DestinationServer: model.InClusterURL, OCICharts: true})
	var fetched []string
	for _, s := range app["spec"].(map[string]any)["sources"].([]any)[:2] {
		fetched = append(fetched, s.(map[string]any)["repoURL"].(string))
	}
	slices.Sort(urls)
	slices.Sort(fetched)
	if !slices.Equal(urls, fetched) {
		t.Errorf("the Secrets name %v, the Applications fetch the charts from %v", urls, fetched)
	}
}
