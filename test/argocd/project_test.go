package argocd

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	"sigs.k8s.io/yaml"
)

// TestProjectPermitsEverySource: with Argo CD's own AppProject code, the
// AppProject karpgen writes beside each Application permits every source
// of it, whether the charts come from the registry as a Helm repository
// or (charts: "oci") from native oci:// repositories, which Argo CD reads
// as OCI sources and not as Helm charts.
func TestProjectPermitsEverySource(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "repo")
	repo := newRepo(t, "profiles")
	if err := os.Rename(repo.dir, dir); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "profiles", "zz-oci.cue"), []byte("package profiles\n\nenvironments: staging: argocd: charts: \"oci\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	render := exec.Command(world.karpgen, "render")
	render.Dir = dir
	if out, err := render.CombinedOutput(); err != nil {
		t.Fatalf("karpgen render: %v\n%s", err, out)
	}
	for _, env := range []string{"dev", "staging", "prod"} {
		data, err := os.ReadFile(filepath.Join(dir, "out", env, "argocd-application.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		var app v1alpha1.Application
		var project v1alpha1.AppProject
		for _, doc := range strings.Split(string(data), "\n---\n") {
			var kind struct{ Kind string }
			if err := yaml.Unmarshal([]byte(doc), &kind); err != nil {
				t.Fatal(err)
			}
			switch kind.Kind {
			case "Application":
				err = yaml.UnmarshalStrict([]byte(doc), &app)
			case "AppProject":
				err = yaml.UnmarshalStrict([]byte(doc), &project)
			}
			if err != nil {
				t.Fatalf("out/%s/argocd-application.yaml: %v", env, err)
			}
		}
		if project.Name != app.Spec.Project {
			t.Fatalf("%s: the Application's project is %q, the file's AppProject %q", env, app.Spec.Project, project.Name)
		}
		oci := env == "staging"
		for i, src := range app.Spec.Sources {
			if !project.IsSourcePermitted(src) {
				t.Errorf("%s: AppProject %s does not permit source %d (%s)", env, project.Name, i, src.RepoURL)
			}
			if i < 2 && (src.IsOCI() != oci || src.IsHelm() == oci) {
				t.Errorf("%s: chart source %d (%s): Argo CD reads it as OCI %v, Helm %v", env, i, src.RepoURL, src.IsOCI(), src.IsHelm())
			}
		}
	}
}
