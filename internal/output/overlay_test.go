package output_test

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/karpgen/karpgen/internal/output"
)

// overlayBundle is a bundle of one NodePool and one EC2NodeClass.
func overlayBundle() map[string]string {
	return map[string]string{
		"kustomization.yaml":  "resources: [nodepools.yaml, ec2nodeclasses.yaml]\n",
		"nodepools.yaml":      "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata:\n  name: app\nspec:\n  template:\n    spec:\n      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}\n",
		"ec2nodeclasses.yaml": "apiVersion: karpenter.k8s.aws/v1\nkind: EC2NodeClass\nmetadata:\n  name: default\nspec:\n  role: r\n",
	}
}

// names lists "Kind name" of a stream's objects.
func names(t *testing.T, stream []byte) []string {
	var out []string
	dec := yaml.NewDecoder(strings.NewReader(string(stream)))
	for {
		var o struct {
			Kind     string `yaml:"kind"`
			Metadata struct {
				Name, Namespace string
			} `yaml:"metadata"`
		}
		if err := dec.Decode(&o); err != nil {
			break
		}
		out = append(out, o.Kind+" "+o.Metadata.Namespace+"/"+o.Metadata.Name)
	}
	slices.Sort(out)
	return out
}

// FuzzOverlay builds mutated overlays: kustomize never reads outside the
// overlay, nothing panics, and whatever an overlay makes that is printed
// holds exactly the bundle's objects (patched, labelled, annotated).
func FuzzOverlay(f *testing.F) {
	f.Add("commonLabels: {team: a}\n", "")
	f.Add("resources: [extra.yaml]\n", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n")
	f.Add("namePrefix: x-\n", "")
	f.Add("patches:\n- path: extra.yaml\n", "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: app}\nspec: {weight: 3}\n")
	f.Add("patches:\n- patch: |\n    $patch: delete\n    apiVersion: karpenter.sh/v1\n    kind: NodePool\n    metadata: {name: app}\n", "")
	f.Add("resources: [../../etc]\n", "")
	f.Add("a: &a [1,1,1,1,1,1,1,1,1]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\nd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]\ne: [*d,*d,*d,*d,*d,*d,*d,*d,*d]\n", "")
	f.Fuzz(func(t *testing.T, kustomization, extra string) {
		dir := t.TempDir()
		overlay := filepath.Join(dir, "overlays", "dev")
		write(t, filepath.Join(overlay, "kustomization.yaml"), kustomization)
		write(t, filepath.Join(overlay, "extra.yaml"), extra)
		b := bundle("dev", overlayBundle())
		base, err := output.BuildBundle(b, "")
		if err != nil {
			t.Fatal(err)
		}
		stream, err := output.BuildBundle(b, overlay)
		if err != nil {
			return
		}
		if got, want := names(t, stream), names(t, base); !slices.Equal(got, want) {
			t.Fatalf("the overlay made %v of %v\n%s", got, want, kustomization)
		}
		if strings.Contains(string(stream), "root:x:0:0") {
			t.Fatal("a host file reached the output")
		}
	})
}
