package conformance

import (
	"path"
	"reflect"
	"sort"
	"testing"

	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"
	"sigs.k8s.io/yaml"
)

// TestKustomization builds each bundle's kustomization.yaml with kustomize
// and gets exactly the bundle's NodePools and EC2NodeClasses.
func TestKustomization(t *testing.T) {
	for _, v := range matrix() {
		t.Run(v.String(), func(t *testing.T) {
			b := render(t, v)
			fs := filesys.MakeFsInMemory()
			for p, data := range b.Files {
				if err := fs.WriteFile(path.Join("/out", p), data); err != nil {
					t.Fatal(err)
				}
			}
			res, err := krusty.MakeKustomizer(krusty.MakeDefaultOptions()).Run(fs, "/out")
			if err != nil {
				t.Fatalf("kustomize build: %v", err)
			}
			got, err := res.AsYaml()
			if err != nil {
				t.Fatal(err)
			}
			want := append(objects(t, b.Files["ec2nodeclasses.yaml"]), objects(t, b.Files["nodepools.yaml"])...)
			if g, w := normalized(t, objects(t, got)), normalized(t, want); !reflect.DeepEqual(g, w) {
				t.Errorf("kustomize build gives\n%v\nwant\n%v", g, w)
			}
		})
	}
}

// normalized sorts objects by kind and name and round-trips them as JSON.
func normalized(t *testing.T, objs []map[string]any) []string {
	var out []string
	for _, o := range objs {
		b, err := yaml.Marshal(o)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, string(b))
	}
	sort.Strings(out)
	return out
}
