package argocd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/argoproj/argo-cd/v3/common"
)

// TestImageHoldsWhatTheSidecarRuns: the plugin image is built on no base
// image (its commands need karpgen alone, as the tests here run them with
// nothing else on PATH), puts plugin.yaml where argocd-cmp-server reads it
// by default, and runs as the sidecar's user.
func TestImageHoldsWhatTheSidecarRuns(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(world.root, "deploy", "argocd", "Dockerfile"))
	if err != nil {
		t.Fatal(err)
	}
	var from, copies, user []string
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		switch f[0] {
		case "FROM":
			from = append(from, strings.Join(f[1:], " "))
		case "COPY":
			copies = append(copies, strings.Join(f[1:], " "))
		case "USER":
			user = f[1:]
		}
	}
	if strings.Join(from, ",") != "scratch" {
		t.Errorf("the image is built FROM %v, want scratch alone", from)
	}
	want := "deploy/argocd/plugin.yaml " + filepath.Join(common.DefaultPluginConfigFilePath, "plugin.yaml")
	if !strings.Contains(strings.Join(copies, "\n"), want) {
		t.Errorf("the image copies %v, not %s", copies, want)
	}
	if strings.Join(user, "") != "999:999" {
		t.Errorf("the image runs as %v, the sidecar as %d", user, sidecarUID)
	}
}

// TestOneArgoCD: the CRDs and code the conformance tests read
// (reference/argocd/SOURCE) are of the Argo CD release this module builds
// and runs.
func TestOneArgoCD(t *testing.T) {
	source, err := os.ReadFile(filepath.Join(world.root, "reference", "argocd", "SOURCE"))
	if err != nil {
		t.Fatal(err)
	}
	mod, err := os.ReadFile("go.mod")
	if err != nil {
		t.Fatal(err)
	}
	var reference, built string
	for _, line := range strings.Split(string(source), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "module" {
			_, reference, _ = strings.Cut(f[1], "@")
		}
	}
	for _, line := range strings.Split(string(mod), "\n") {
		if f := strings.Fields(line); len(f) == 2 && f[0] == "github.com/argoproj/argo-cd/v3" {
			built = f[1]
		}
	}
	if reference == "" || reference != built {
		t.Errorf("reference/argocd is of Argo CD %q, test/argocd builds %q", reference, built)
	}
}
