package conformance

import (
	"crypto/sha256"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/karpgen/karpgen/generators"
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
