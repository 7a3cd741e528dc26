package lint

import (
	"fmt"
	"slices"
	"strings"

	"github.com/karpgen/karpgen/internal/diag"
	"github.com/karpgen/karpgen/internal/facts/instancetypes"
	"github.com/karpgen/karpgen/internal/profile"
)

// labelsRules are the rules of the group Labels and taints.
var labelsRules = []*Rule{
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
