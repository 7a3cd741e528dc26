package lint

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/karpgen/karpgen/internal/model"
	"github.com/karpgen/karpgen/internal/util/manifest"
)

// clusterScoped are the Karpenter kinds that live outside namespaces.
var clusterScoped = []string{"NodePool", "EC2NodeClass", "NodeOverlay", "NodeClaim"}

// CheckBuilt checks the objects `karpgen build` is about to print, after
// an overlay had its say: every NodePool's nodeClassRef names an
// EC2NodeClass of the output, Karpenter's cluster-scoped objects carry no
// namespace, each EC2NodeClass's role is the one the controller may pass,
// and NodePool labels, requirements and taints pass the rules the
// profile's were held to. The error lists every problem.
func CheckBuilt(e *model.Env, stream []byte) error {
	objs, err := manifest.All[builtObject](stream)
	if err != nil {
		return fmt.Errorf("reading the built objects: %w", err)
	}
	var problems []string
	report := func(o builtObject, format string, args ...any) {
		problems = append(problems, fmt.Sprintf("%s %s: ", o.Kind, o.Metadata.Name)+fmt.Sprintf(format, args...))
	}
	classes := map[string]bool{}
	for _, o := range objs {
		if o.Kind == "EC2NodeClass" && strings.HasPrefix(o.APIVersion, "karpenter.k8s.aws/") {
			classes[o.Metadata.Name] = true
		}
	}
	for _, o := range objs {
		if !strings.HasPrefix(o.APIVersion, "karpenter.") || !slices.Contains(clusterScoped, o.Kind) {
			continue
		}
		if o.Metadata.Namespace != "" {
			report(o, "has namespace %q, but %s is cluster-scoped", o.Metadata.Namespace, o.Kind)
		}
		switch o.Kind {
		case "EC2NodeClass":
			if o.Spec.InstanceProfile == "" && !e.Names.HasNodeRole(o.Spec.Role) {
				report(o, "uses role %q, but the controller may only pass %s (iam:PassRole)", o.Spec.Role, quoted(e.Names.NodeRoles()))
			}
		case "NodePool":
			t := o.Spec.Template
			ref := t.Spec.NodeClassRef
			if ref.Kind != "EC2NodeClass" || ref.Group != "karpenter.k8s.aws" || !classes[ref.Name] {
				report(o, "nodeClassRef %s/%s %q names no EC2NodeClass of the output", ref.Group, ref.Kind, ref.Name)
			}
			if e.Facts == nil {
				continue
			}
			for _, k := range slices.Sorted(maps.Keys(t.Metadata.Labels)) {
				if why := qualifiedName(k); why != "" {
					report(o, "label key %q %s", k, why)
				} else if why := RestrictedLabel(e.Facts, k, false); why != "" {
					report(o, "label %q: %s", k, why)
				}
				if why := labelValue(t.Metadata.Labels[k]); why != "" {
					report(o, "label %q value %q %s", k, t.Metadata.Labels[k], why)
				}
			}
			for _, r := range t.Spec.Requirements {
				if why := RestrictedLabel(e.Facts, r.Key, true); why != "" {
					report(o, "requirement %q: %s", r.Key, why)
				}
			}
			for _, taint := range append(slices.Clone(t.Spec.Taints), t.Spec.StartupTaints...) {
				if why := qualifiedName(taint.Key); why != "" {
					report(o, "taint key %q %s", taint.Key, why)
				}
				if !slices.Contains(taintEffects, taint.Effect) {
					report(o, "taint %q has effect %q, not one of %s", taint.Key, taint.Effect, strings.Join(taintEffects, ", "))
				}
			}
		}
	}
	if len(problems) > 0 {
		return fmt.Errorf("the overlaid objects of %s are not what Karpenter can use:\n  %s", e.Name, strings.Join(problems, "\n  "))
	}
	return nil
}

// builtObject is what CheckBuilt reads of an object.
type builtObject struct {
	manifest.Header `yaml:",inline"`
	Spec            struct {
		Role            string `yaml:"role"`
		InstanceProfile string `yaml:"instanceProfile"`
		Template        struct {
			Metadata struct {
				Labels map[string]string `yaml:"labels"`
			} `yaml:"metadata"`
			Spec struct {
				NodeClassRef struct {
					Group string `yaml:"group"`
					Kind  string `yaml:"kind"`
					Name  string `yaml:"name"`
				} `yaml:"nodeClassRef"`
				Requirements []struct {
					Key string `yaml:"key"`
				} `yaml:"requirements"`
				Taints        []builtTaint `yaml:"taints"`
				StartupTaints []builtTaint `yaml:"startupTaints"`
			} `yaml:"spec"`
		} `yaml:"template"`
	} `yaml:"spec"`
}

type builtTaint struct {
	Key    string `yaml:"key"`
	Effect string `yaml:"effect"`
}

// quoted lists the node roles' names, quoted, for a message.
func quoted(roles []model.NodeRole) string {
	q := make([]string, len(roles))
	for i, r := range roles {
		q[i] = strconv.Quote(r.Name)
	}
	return strings.Join(q, ", ")
}
