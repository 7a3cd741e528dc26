package lint

import (
	"fmt"
	"strings"

	"github.com/karpgen/karpgen/internal/diag"
	"github.com/karpgen/karpgen/internal/facts"
)

var featureRules = []*Rule{
	{
		ID: "value/static-pool", Severity: diag.Error, Group: "Values",
		Summary: "A static pool (replicas) limits only nodes and has no weight, as the NodePool CRD requires.",
		check: func(c *Context) {
			for p, np := range c.pools() {
				if np.Replicas == nil {
					continue
				}
				base := at("nodePools", field(p))
				for _, k := range names(np.Limits) {
					if k != "nodes" {
						c.Report(at(base, "limits", field(k)), "a static pool limits only nodes: limits: nodes: N",
							"static pool %q limits %s; the CRD allows only limits.nodes", p, k)
					}
				}
				if np.Weight != nil {
					c.Report(at(base, "weight"), "drop the weight", "static pool %q has a weight; the CRD refuses it", p)
				}
			}
		},
	},
	{
		ID: "ops/static-pool-consolidation", Severity: diag.Warning, Group: "Operations",
		Summary: "A static pool's consolidation settings are ignored: say none.",
		Hint:    "drop disruption.consolidationPolicy and consolidateAfter from the pool",
		check: func(c *Context) {
			for p := range c.pools() {
				if c.P.NodePools[p].Replicas == nil {
					continue
				}
				for _, k := range []string{"consolidationPolicy", "consolidateAfter"} {
					if path := at("nodePools", field(p), "disruption", k); c.Src.Has(path) {
						c.Report(path, "", "static pool %q sets disruption.%s, which Karpenter ignores for static pools", p, k)
					}
				}
			}
		},
	},
	{
		ID: "version/feature", Severity: diag.Error, Group: "Versions",
		Summary: "A field the profile sets exists in its Karpenter minor (the facts table says which minor each arrives in).",
		check: func(c *Context) {
			if c.Minor == nil {
				return
			}
			for _, f := range facts.Features {
				if c.Minor.Has(f) {
					continue
				}
				for _, path := range c.used(f.Path) {
					c.Report(path, fmt.Sprintf("move to Karpenter %s or later, or drop the field", f.Since),
						"%s arrives in Karpenter %s; the profile runs %s", path, f.Since, c.Version)
				}
			}
		},
	},
}

// used returns the paths of the profile a feature path matches that the
// profile sets: * stands for any name of the map before it, [] for any
// index of the list before it.
func (c *Context) used(pattern string) []string {
	switch pattern {
	case "nodeOverlays":
		if len(c.P.NodeOverlays) > 0 {
			return []string{pattern}
		}
		return nil
	case "capacityBuffers":
		if len(c.P.CapacityBuffers) > 0 {
			return []string{pattern}
		}
		return nil
	}
	var out []string
	for _, p := range c.expand(pattern) {
		if c.Src.Has(p) {
			out = append(out, p)
		}
	}
	return out
}

// expand turns a feature path into the concrete paths of the profile.
func (c *Context) expand(pattern string) []string {
	head, rest, _ := strings.Cut(pattern, ".*.")
	var keys []string
	switch head {
	case "nodeClasses":
		keys = names(c.P.NodeClasses)
	case "nodePools":
		keys = names(c.P.NodePools)
	default:
		return []string{pattern}
	}
	var out []string
	for _, k := range keys {
		base := at(head, field(k))
		list, leaf, ok := strings.Cut(rest, "[].")
		if !ok {
			out = append(out, at(base, rest))
			continue
		}
		n := 0
		switch list {
		case "blockDevices":
			n = len(c.P.NodeClasses[k].BlockDevices)
		case "capacityReservationSelectorTerms":
			n = len(c.P.NodeClasses[k].CapacityReservationSelectorTerms)
		}
		for i := range n {
			out = append(out, at(base, list, i, leaf))
		}
	}
	return out
}
