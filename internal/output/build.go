package output

import (
	"fmt"
	"os"
	"path"
	"path/filepath"

	"go.yaml.in/yaml/v3"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"

	"github.com/karpgen/karpgen/generators"
)

// BuildBundle runs kustomize over a bundle, in memory, and returns the objects
// as one YAML stream. When overlayDir holds a kustomization.yaml, it is
// built on top of the bundle: the bundle becomes its first resource, so
// the overlay's patches, labels and annotations apply to it.
func BuildBundle(b *generators.Bundle, overlayDir string) ([]byte, error) {
	fs := filesys.MakeFsInMemory()
	for p, data := range b.Files {
		if err := fs.WriteFile(path.Join("/karpgen/bundle", p), data); err != nil {
			return nil, err
		}
	}
	root := "/karpgen/bundle"
	if overlayDir != "" {
		if _, err := os.Stat(filepath.Join(overlayDir, "kustomization.yaml")); err == nil {
			if err := copyOverlay(fs, overlayDir, "/karpgen/overlay"); err != nil {
				return nil, err
			}
			root = "/karpgen/overlay"
		}
	}
	res, err := krusty.MakeKustomizer(krusty.MakeDefaultOptions()).Run(fs, root)
	if err != nil {
		return nil, fmt.Errorf("kustomize: %w", err)
	}
	if res.Size() == 0 {
		return nil, fmt.Errorf("environment %s has no Kubernetes objects", b.Env)
	}
	return res.AsYaml()
}

// copyOverlay copies the overlay folder into memory and makes the bundle
// its first resource.
func copyOverlay(fs filesys.FileSystem, dir, to string) error {
	files, err := ReadDir(dir)
	if err != nil {
		return fmt.Errorf("reading overlay %s: %w", dir, err)
	}
	for rel, data := range files {
		if err := fs.WriteFile(path.Join(to, rel), data); err != nil {
			return err
		}
	}
	kpath := path.Join(to, "kustomization.yaml")
	data, err := fs.ReadFile(kpath)
	if err != nil {
		return err
	}
	var k map[string]any
	if err := yaml.Unmarshal(data, &k); err != nil {
		return fmt.Errorf("%s: %w", filepath.Join(dir, "kustomization.yaml"), err)
	}
	if k == nil {
		k = map[string]any{}
	}
	resources, _ := k["resources"].([]any)
	k["resources"] = append([]any{"../bundle"}, resources...)
	out, err := yaml.Marshal(k)
	if err != nil {
		return err
	}
	return fs.WriteFile(kpath, out)
}
