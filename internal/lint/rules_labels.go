package lint

import (
	"fmt"
	"slices"
	"strings"

	"github.com/karpgen/karpgen/internal/diag"
	"github.com/karpgen/karpgen/internal/facts"
	"github.com/karpgen/karpgen/internal/facts/instancetypes"
	"github.com/karpgen/karpgen/internal/profile"
)

// wellKnown are the requirement keys Karpenter schedules on besides its
// own karpenter.k8s.aws keys.
var wellKnown = []string{
	"topology.kubernetes.io/zone", "topology.kubernetes.io/region", "topology.k8s.aws/zone-id",
	"node.kubernetes.io/instance-type", "node.kubernetes.io/windows-build",
	"kubernetes.io/os", "kubernetes.io/arch", "karpenter.sh/capacity-type",
	"beta.kubernetes.io/instance-type", "beta.kubernetes.io/os", "beta.kubernetes.io/arch",
	"failure-domain.beta.kubernetes.io/region", "failure-domain.beta.kubernetes.io/zone",
}

// oldKubernetesAllowed are the kubernetes.io keys the CRD allowed up to v1.8.
var oldKubernetesAllowed = []string{
	"beta.kubernetes.io/instance-type", "failure-domain.beta.kubernetes.io/region", "beta.kubernetes.io/os",
	"beta.kubernetes.io/arch", "failure-domain.beta.kubernetes.io/zone", "topology.kubernetes.io/zone",
	"topology.kubernetes.io/region", "kubernetes.io/arch", "kubernetes.io/os", "node.kubernetes.io/windows-build",
}

var taintEffects = []string{"NoSchedule", "PreferNoSchedule", "NoExecute"}

func (c *Context) restricted(key string, requirement bool) string {
	return RestrictedLabel(c.Minor, key, requirement)
}

// RestrictedLabel says why the NodePool CRD of minor m refuses a template
// label (requirement false) or requirement key, or "" when it accepts it.
func RestrictedLabel(m *facts.Minor, key string, requirement bool) string {
	d := domain(key)
	switch {
	case key == "karpenter.sh/nodepool":
		return "Karpenter sets karpenter.sh/nodepool itself"
	case key == "kubernetes.io/hostname":
		return "kubernetes.io/hostname is unique to each node"
	case strings.HasSuffix(d, "karpenter.sh") && key != "karpenter.sh/capacity-type":
		return `the label domain "karpenter.sh" is restricted`
	case strings.HasSuffix(d, "karpenter.k8s.aws") && !slices.Contains(m.Labels.AWSKeys, key):
		return fmt.Sprintf("the label domain \"karpenter.k8s.aws\" is restricted to Karpenter's well-known keys in %s", m.Minor)
	}
	if !m.Labels.RestrictKubernetesDomains {
		return ""
	}
	switch {
	case strings.HasSuffix(d, "kubernetes.io"):
		if slices.Contains(oldKubernetesAllowed, key) || (requirement && key == "node.kubernetes.io/instance-type") ||
			strings.HasSuffix(d, "node.kubernetes.io") || strings.HasSuffix(d, "node-restriction.kubernetes.io") {
			return ""
		}
		return fmt.Sprintf("the label domain \"kubernetes.io\" is restricted in Karpenter %s", m.Minor)
	case strings.HasSuffix(d, "k8s.io") && !strings.HasSuffix(d, "kops.k8s.io"):
		return fmt.Sprintf("the label domain \"k8s.io\" is restricted in Karpenter %s", m.Minor)
	}
	return ""
}

var labelRules = []*Rule{
	{
		ID: "label/restricted", Severity: diag.Error, Group: "Labels and taints",
		Summary: "Node pool labels and requirement keys avoid the keys and domains the NodePool CRD of that version restricts.",
		Hint:    "use a label of your own domain (e.g. example.com/team), or Karpenter's well-known key for the same thing",
		check: func(c *Context) {
			if c.Minor == nil {
				return
			}
			for pool, np := range c.pools() {
				for _, k := range names(np.Labels) {
					if why := c.restricted(k, false); why != "" {
						c.Report(at("nodePools", field(pool), "labels", field(k)), "", "label %q is refused by the NodePool CRD: %s", k, why)
					}
				}
				for i, r := range np.Requirements {
					if why := c.restricted(r.Key, true); why != "" {
						c.Report(at("nodePools", field(pool), "requirements", i, "key"), "", "requirement key %q is refused by the NodePool CRD: %s", r.Key, why)
					}
				}
			}
		},
	},
	{
		ID: "label/unknown-requirement", Severity: diag.Error, Group: "Labels and taints",
		Summary: "Requirement keys in Kubernetes' and AWS's domains are keys Karpenter knows (or labels the pool sets): the CRD takes any such key, and a requirement no instance type defines restricts nothing; a near miss names the right key.",
		check: func(c *Context) {
			if c.Minor == nil {
				return
			}
			known := append(slices.Clone(wellKnown), c.Minor.Labels.AWSKeys...)
			for pool, np := range c.pools() {
				for i, r := range np.Requirements {
					if slices.Contains(known, r.Key) || c.restricted(r.Key, true) != "" {
						continue
					}
					if _, ok := np.Labels[r.Key]; ok {
						continue
					}
					d := domain(r.Key)
					s := suggestKey(r.Key, known)
					if s == "" && !strings.HasSuffix(d, "kubernetes.io") && !strings.HasSuffix(d, "k8s.io") && !strings.HasSuffix(d, "k8s.aws") {
						continue
					}
					// What the pool may launch with the requirement as it is
					// (it restricts nothing), and with the key meant.
					region := c.E.Names.Region
					now := len(instancetypes.Select(np, region).Types)
					effect := fmt.Sprintf("the NodePool is accepted and the requirement restricts nothing: the pool may launch %d instance types", now)
					hint := "use a well-known key (see the Karpenter scheduling docs) or a label of your own domain"
					if s != "" {
						meant := np
						meant.Requirements = slices.Clone(np.Requirements)
						meant.Requirements[i].Key = s
						effect += fmt.Sprintf(" (with %q, %d)", s, len(instancetypes.Select(meant, region).Types))
						hint = fmt.Sprintf("did you mean %q?", s)
					}
					c.Report(at("nodePools", field(pool), "requirements", i, "key"), hint,
						"requirement key %q is not a label Karpenter knows, and no instance type has it: %s", r.Key, effect)
				}
			}
		},
	},
	{
		ID: "label/syntax", Severity: diag.Error, Group: "Labels and taints",
		Summary: "Label keys and values of node groups, node pools and node overlays' requirements are valid Kubernetes labels.",
		Hint:    "keys are [prefix/]name with a name of at most 63 characters; values are at most 63 letters, digits, '-', '_' or '.'",
		check: func(c *Context) {
			check := func(base string, labels map[string]string) {
				for _, k := range names(labels) {
					if why := qualifiedName(k); why != "" {
						c.Report(at(base, "labels", field(k)), "", "label key %q %s", k, why)
					}
					if why := labelValue(labels[k]); why != "" {
						c.Report(at(base, "labels", field(k)), "", "label value %q of %q %s", labels[k], k, why)
					}
				}
			}
			for _, g := range names(c.P.NodeGroups) {
				check(at("nodeGroups", field(g)), c.P.NodeGroups[g].Labels)
			}
			requirements := func(base string, rs []profile.Requirement) {
				for i, r := range rs {
					if why := qualifiedName(r.Key); why != "" {
						c.Report(at(base, "requirements", i, "key"), "", "requirement key %q %s", r.Key, why)
					}
					for j, v := range r.Values {
						if why := labelValue(v); why != "" {
							c.Report(at(base, "requirements", i, "values", j), "", "requirement value %q %s", v, why)
						}
					}
				}
			}
			for p, np := range c.pools() {
				check(at("nodePools", field(p)), np.Labels)
				requirements(at("nodePools", field(p)), np.Requirements)
			}
			for _, o := range names(c.P.NodeOverlays) {
				requirements(at("nodeOverlays", field(o)), c.P.NodeOverlays[o].Requirements)
			}
		},
	},
	{
		ID: "taint/syntax", Severity: diag.Error, Group: "Labels and taints",
		Summary: "Taints have a valid key and value and an effect of NoSchedule, PreferNoSchedule or NoExecute.",
		Hint:    "effects are NoSchedule, PreferNoSchedule or NoExecute",
		check: func(c *Context) {
			for _, path := range c.taintPaths() {
				for i, t := range path.taints {
					p := at(path.base, i)
					if why := qualifiedName(t.Key); why != "" {
						c.Report(at(p, "key"), "taint keys are [prefix/]name like label keys, e.g. \"example.com/dedicated\"", "taint key %q %s", t.Key, why)
					}
					if why := labelValue(t.Value); why != "" {
						c.Report(at(p, "value"), "taint values follow label value rules: at most 63 letters, digits, '-', '_' or '.'", "taint value %q %s", t.Value, why)
					}
					if !slices.Contains(taintEffects, t.Effect) {
						hint := ""
						if s := closest(t.Effect, taintEffects); s != "" {
							hint = fmt.Sprintf("did you mean %q?", s)
						}
						c.Report(at(p, "effect"), hint, "taint effect %q is not one of NoSchedule, PreferNoSchedule, NoExecute", t.Effect)
					}
				}
			}
		},
	},
}

// suggestKey finds a well-known key with the same name part, or a close one.
func suggestKey(key string, known []string) string {
	_, name, _ := strings.Cut(key, "/")
	for _, k := range known {
		if _, kn, _ := strings.Cut(k, "/"); kn == name && k != key {
			return k
		}
	}
	return closest(key, known)
}
