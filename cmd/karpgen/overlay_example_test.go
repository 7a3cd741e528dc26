package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/karpgen/karpgen/internal/oracle"
)

// TestOverlayExample: the overlay docs/examples/overlay holds, put in the
// repository's own profiles as profiles/overlays/prod/, builds: every
// object carries its label and the app pool its CPU limit; the same
// overlay with a resource of its own is refused, as the plugin refuses
// it. docs/argocd.md shows the example as it is.
func TestOverlayExample(t *testing.T) {
	root := oracle.Root()
	example, err := os.ReadFile(filepath.Join(root, "docs", "examples", "overlay", "kustomization.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	copyTree(t, filepath.Join(root, "profiles"), filepath.Join(dir, "profiles"))
	overlay := filepath.Join(dir, "profiles", "overlays", "prod")
	if err := os.MkdirAll(overlay, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(overlay, "kustomization.yaml"), example, 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := runIn(t, dir, "build", "prod")
	if code != 0 || errOut != "" {
		t.Fatalf("build prod with the example overlay: exit %d\n%s", code, errOut)
	}
	objects := strings.Count("\n"+out, "\nkind: ")
	if labels := strings.Count(out, "example.com/cost-center: platform"); labels < objects || objects == 0 {
		t.Errorf("%d objects, %d with the overlay's label:\n%s", objects, labels, out)
	}
	if !strings.Contains(out, "limits:\n    cpu: 80\n") {
		t.Errorf("the app pool's CPU limit is not the overlay's:\n%s", out)
	}

	withResource := string(example) + "resources:\n  - extra.yaml\n"
	if err := os.WriteFile(filepath.Join(overlay, "kustomization.yaml"), []byte(withResource), 0o644); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(overlay, "extra.yaml"), []byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: extra}\n"), 0o644)
	if out, errOut, code := runIn(t, dir, "build", "prod"); code == 0 || out != "" {
		t.Errorf("an overlay that adds a resource built (exit %d):\n%s%s", code, out, errOut)
	}

	doc, err := os.ReadFile(filepath.Join(root, "docs", "argocd.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(doc), "```yaml\n"+string(example)+"```\n") {
		t.Errorf("docs/argocd.md does not show docs/examples/overlay/kustomization.yaml as it is")
	}
}
