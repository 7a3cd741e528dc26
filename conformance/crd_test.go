package conformance

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	apiextensions "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/pruning"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	"k8s.io/apimachinery/pkg/runtime"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	"sigs.k8s.io/yaml"

	"github.com/karpgen/karpgen/internal/facts"
	"github.com/karpgen/karpgen/internal/lint"
	"github.com/karpgen/karpgen/internal/oracle"
)

// crd validates objects of one CRD version as the API server does on
// create: unknown fields (which it would silently prune), defaults, the
// OpenAPI schema and the CEL rules.
type crd struct {
	kind       string
	structural *structuralschema.Structural
	schema     validation.SchemaValidator
	cel        *cel.Validator
}

func loadCRD(t testing.TB, path string) *crd {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var def apiextensionsv1.CustomResourceDefinition
	if err := yaml.Unmarshal(data, &def); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	// The storage version: v1 for Karpenter's v1 kinds, v1alpha1 and
	// v1beta1 for NodeOverlay and CapacityBuffer.
	for _, v := range def.Spec.Versions {
		if !v.Storage {
			continue
		}
		internal := &apiextensions.JSONSchemaProps{}
		if err := apiextensionsv1.Convert_v1_JSONSchemaProps_To_apiextensions_JSONSchemaProps(v.Schema.OpenAPIV3Schema, internal, nil); err != nil {
			t.Fatal(err)
		}
		s, err := structuralschema.NewStructural(internal)
		if err != nil {
			t.Fatalf("%s: structural schema: %v", path, err)
		}
		sv, _, err := validation.NewSchemaValidator(internal)
		if err != nil {
			t.Fatal(err)
		}
		return &crd{kind: def.Spec.Names.Kind, structural: s, schema: sv, cel: cel.NewValidator(s, true, celconfig.PerCallLimit)}
	}
	t.Fatalf("%s has no storage version", path)
	return nil
}

// validate returns every problem the API server would have with obj.
func (c *crd) validate(obj map[string]any) []string {
	o := runtime.DeepCopyJSON(obj)
	var problems []string
	unknown := pruning.PruneWithOptions(o, c.structural, true, structuralschema.UnknownFieldPathOptions{TrackUnknownFieldPaths: true})
	for _, u := range unknown {
		problems = append(problems, fmt.Sprintf("unknown field %q (the API server would drop it)", u))
	}
	defaulting.Default(o, c.structural)
	for _, e := range validation.ValidateCustomResource(nil, o, c.schema) {
		problems = append(problems, e.Error())
	}
	errs, _ := c.cel.Validate(context.Background(), nil, c.structural, o, nil, celconfig.RuntimeCELCostBudget)
	for _, e := range errs {
		problems = append(problems, e.Error())
	}
	sort.Strings(problems)
	return problems
}

type crds struct{ nodePool, nodeClass *crd }

func loadCRDs(t testing.TB, m *facts.Minor) crds {
	dir := filepath.Join(oracle.Dir(t), m.Reference, "crds")
	return crds{
		nodePool:  loadCRD(t, filepath.Join(dir, "karpenter.sh_nodepools.yaml")),
		nodeClass: loadCRD(t, filepath.Join(dir, "karpenter.k8s.aws_ec2nodeclasses.yaml")),
	}
}

// TestCRDs validates the NodePools and EC2NodeClasses of every matrix cell
// against that minor's CRDs, CEL rules included.
func TestCRDs(t *testing.T) {
	oracle.Dir(t)
	loaded := map[string]crds{}
	for _, v := range matrix() {
		t.Run(v.String(), func(t *testing.T) {
			c, ok := loaded[v.minor.Minor]
			if !ok {
				c = loadCRDs(t, v.minor)
				loaded[v.minor.Minor] = c
			}
			b := render(t, v)
			for file, def := range map[string]*crd{"nodepools.yaml": c.nodePool, "ec2nodeclasses.yaml": c.nodeClass} {
				objs := objects(t, b.Files[file])
				if len(objs) != 2 {
					t.Fatalf("%s: %d objects, want 2", file, len(objs))
				}
				for _, o := range objs {
					if o["kind"] != def.kind {
						t.Errorf("%s: kind %v, want %s", file, o["kind"], def.kind)
					}
					if ns, ok := o["metadata"].(map[string]any)["namespace"]; ok {
						t.Errorf("%s: cluster-scoped object has namespace %v", file, ns)
					}
					if problems := def.validate(o); len(problems) > 0 {
						t.Errorf("%s %v is refused by the %s CRD:\n  %s", file, o["metadata"], v.minor.Reference, strings.Join(problems, "\n  "))
					}
				}
			}
		})
	}
}

// TestCRDsCatchMistakes shows the checks can fail: a v1beta1 field, a
// restricted label and a missing required field are each reported.
func TestCRDsCatchMistakes(t *testing.T) {
	oracle.Dir(t)
	m := facts.Newest()
	c := loadCRDs(t, m)
	b := render(t, variant{m, "irsa", true})
	pool := objects(t, b.Files["nodepools.yaml"])[0]
	spec := pool["spec"].(map[string]any)["template"].(map[string]any)["spec"].(map[string]any)
	spec["kubelet"] = map[string]any{"maxPods": int64(110)}
	pool["spec"].(map[string]any)["template"].(map[string]any)["metadata"] = map[string]any{"labels": map[string]any{"karpenter.sh/team": "a"}}
	got := strings.Join(c.nodePool.validate(pool), "\n")
	for _, want := range []string{`unknown field "spec.template.spec.kubelet"`, `label domain "karpenter.sh" is restricted`} {
		if !strings.Contains(got, want) {
			t.Errorf("NodePool problems lack %q:\n%s", want, got)
		}
	}
	class := objects(t, b.Files["ec2nodeclasses.yaml"])[0]
	delete(class["spec"].(map[string]any), "amiSelectorTerms")
	if got := strings.Join(c.nodeClass.validate(class), "\n"); !strings.Contains(got, "spec.amiSelectorTerms: Required value") {
		t.Errorf("EC2NodeClass without amiSelectorTerms was not refused:\n%s", got)
	}
}

// TestLabelRulesAgreeWithCRD: for every minor, karpgen's lint refuses a
// label or requirement key exactly when the CRD's CEL rules do, so vet
// catches it before any cluster does.
func TestLabelRulesAgreeWithCRD(t *testing.T) {
	oracle.Dir(t)
	keys := []string{
		"example.com/team", "team", "karpenter.sh/capacity-type", "karpenter.sh/nodepool", "karpenter.sh/team",
		"sub.karpenter.sh/x", "kubernetes.io/hostname", "kubernetes.io/arch", "kubernetes.io/os", "kubernetes.io/custom",
		"node.kubernetes.io/instance-type", "node.kubernetes.io/instance-family", "node-restriction.kubernetes.io/team",
		"topology.kubernetes.io/zone", "topology.kubernetes.io/region", "beta.kubernetes.io/arch", "example.kubernetes.io/x",
		"failure-domain.beta.kubernetes.io/zone", "example.k8s.io/tier", "kops.k8s.io/instancegroup", "topology.k8s.aws/zone-id",
		"karpenter.k8s.aws/instance-pods", "karpenter.k8s.aws/unknown",
	}
	for _, m := range minors() {
		keys := append(append([]string(nil), keys...), m.Labels.AWSKeys...)
		t.Run(m.Reference, func(t *testing.T) {
			c := loadCRDs(t, m)
			b := render(t, variant{m, "irsa", true})
			base := objects(t, b.Files["nodepools.yaml"])[0]
			for _, key := range keys {
				for _, requirement := range []bool{false, true} {
					o := runtime.DeepCopyJSON(base)
					tmpl := o["spec"].(map[string]any)["template"].(map[string]any)
					if requirement {
						spec := tmpl["spec"].(map[string]any)
						spec["requirements"] = append(spec["requirements"].([]any), map[string]any{"key": key, "operator": "Exists"})
					} else {
						tmpl["metadata"].(map[string]any)["labels"] = map[string]any{key: "x"}
					}
					crdRefuses := len(c.nodePool.validate(o)) > 0
					lintRefuses := lint.RestrictedLabel(m, key, requirement) != ""
					if crdRefuses != lintRefuses {
						t.Errorf("key %q (requirement %v): CRD refuses %v, lint refuses %v: %v", key, requirement, crdRefuses, lintRefuses, c.nodePool.validate(o))
					}
				}
			}
		})
	}
}
