package lint

import (
	"fmt"
	"slices"
	"strings"
	"unicode"

	"github.com/karpgen/karpgen/internal/diag"
	"github.com/karpgen/karpgen/internal/model"
	"github.com/karpgen/karpgen/internal/profile"
)

var repels = model.Repels

var separationRules = []*Rule{
	{
		ID: "separation/system-group", Severity: diag.Error, Group: "Workload separation",
		Summary: "When node pools are tainted, system pods (coredns, ...) have an untainted node group to run on.",
		Hint:    "add a node group without NoSchedule/NoExecute taints, e.g. nodeGroups: system: labels: nodegroup: \"system\"",
		check: func(c *Context) {
			if len(c.P.NodeGroups) == 0 {
				return // reported by separation/controller
			}
			for _, g := range c.P.NodeGroups {
				if !repels(g.Taints) {
					return
				}
			}
			for _, np := range c.P.NodePools {
				if !repels(np.Taints) {
					return
				}
			}
			c.Report("nodeGroups", "", "every node group and node pool is tainted: system pods without tolerations have nowhere to run")
		},
	},
	{
		ID: "separation/controller", Severity: diag.Error, Group: "Workload separation",
		Summary: "The Karpenter controller runs on a node group it does not manage, selected by that group's labels (its taints are tolerated).",
		check: func(c *Context) {
			if len(c.P.NodeGroups) == 0 {
				c.Report("nodeGroups", "add an EKS managed node group for Karpenter and the system pods",
					"the profile has no node group: Karpenter would have to run on nodes it manages itself")
				return
			}
			g := c.P.Karpenter.Controller.NodeGroup
			group, ok := c.P.NodeGroups[g]
			if g == "" {
				c.Report("karpenter.controller", "set karpenter.controller.nodeGroup to the group that runs cluster add-ons",
					"karpenter.controller.nodeGroup is not set: the controller is not pinned to a node group")
				return
			}
			if ok && len(group.Labels) == 0 {
				c.Report(at("nodeGroups", field(g)), "give the node group a label, e.g. labels: nodegroup: \""+g+"\"",
					"node group %q runs the controller but has no labels to select it by", g)
			}
		},
	},
	{
		ID: "separation/pool-taint", Severity: diag.Warning, Group: "Workload separation",
		Summary: "Where the profile separates workloads (a tainted node group), every node pool is tainted too.",
		Hint:    "taint the pool (e.g. {key: \"nodegroup\", value: \"app\", effect: \"NoSchedule\"}) and let app workloads tolerate it",
		check: func(c *Context) {
			separated := false
			for _, g := range c.P.NodeGroups {
				separated = separated || repels(g.Taints)
			}
			if !separated {
				return
			}
			for p := range c.pools() {
				if !repels(c.P.NodePools[p].Taints) {
					c.Report(at("nodePools", field(p)), "", "node pool %q has no NoSchedule taint: system and add-on pods can land on nodes that consolidation replaces", p)
				}
			}
		},
	},
	{
		ID: "separation/label-overlap", Severity: diag.Error, Group: "Workload separation",
		Summary: "A node pool does not carry a node group's label: pods pinned to the group would land on Karpenter nodes.",
		Hint:    "give the pool a value of its own, e.g. nodegroup: \"app\"",
		check: func(c *Context) {
			for p, np := range c.pools() {
				for _, k := range names(np.Labels) {
					for _, g := range names(c.P.NodeGroups) {
						if v, ok := c.P.NodeGroups[g].Labels[k]; ok && v == np.Labels[k] {
							c.Report(at("nodePools", field(p), "labels", field(k)), "",
								"node pool %q sets %s=%s, the label of node group %q: what selects the group also selects Karpenter nodes", p, k, v, g)
						}
					}
				}
			}
		},
	},
}

var opsRules = []*Rule{
	{
		ID: "ops/spot-diversity", Severity: diag.Warning, Group: "Operations",
		Summary: "A spot pool allows enough instance types (at least 10) to ride out spot interruptions.",
		Hint:    "allow more families, sizes or CPU counts: spot capacity comes from diversity",
		check: func(c *Context) {
			for p, np := range c.pools() {
				if !slices.Contains(np.CapacityTypes, "spot") {
					continue
				}
				if n, bounded := instanceTypeBound(np); bounded && n < 10 {
					c.Report(at("nodePools", field(p), "capacityTypes"), "", "spot pool %q allows at most %d instance types: interruptions may leave it without capacity", p, n)
				}
			}
		},
	},
	{
		ID: "ops/ami-latest-prod", Severity: diag.Warning, Group: "Operations",
		Summary: "A production environment (its name, its cluster's name, or an Environment/Stage tag of its node classes says prod or production) pins its AMI alias instead of @latest, or its pools hold drift back with a budget for the Drifted reason.",
		Hint:    "pin a release, e.g. \"al2023@v20250116\", and roll it forward on purpose; or add a budget {nodes: \"0\", reasons: [\"Drifted\"], schedule: ..., duration: ...} to its pools",
		check: func(c *Context) {
			why := production(c.E.Name, c.P)
			if why == "" {
				return
			}
			for _, n := range names(c.P.NodeClasses) {
				if a := c.P.NodeClasses[n].AMI.Alias; strings.HasSuffix(a, "@latest") && !strings.HasPrefix(a, "windows") && !driftHeld(c.P, n) {
					c.Report(at("nodeClasses", field(n), "ami", "alias"), "", "AMI alias %q in %s, a production environment (%s): every AMI release drifts and replaces all nodes", a, c.E.Name, why)
				}
			}
		},
	},
	{
		ID: "ops/hop-limit", Severity: diag.Warning, Group: "Operations",
		Summary: "Node classes whose pods read instance metadata (podsUseIMDS) allow two IMDS hops.",
		Hint:    "set metadataOptions.httpPutResponseHopLimit: 2",
		check: func(c *Context) {
			for _, n := range names(c.P.NodeClasses) {
				nc := c.P.NodeClasses[n]
				if nc.PodsUseIMDS && nc.MetadataOptions.HTTPPutResponseHopLimit < 2 {
					path := at("nodeClasses", field(n), "metadataOptions", "httpPutResponseHopLimit")
					if !c.Src.Has(path) {
						path = at("nodeClasses", field(n), "podsUseIMDS")
					}
					c.Report(path, "",
						"node class %q has IMDS hop limit %d, but its pods read instance metadata: from a pod network that needs 2 hops", n, nc.MetadataOptions.HTTPPutResponseHopLimit)
				}
			}
		},
	},
}

// instanceTypeBound is an upper bound of the instance types a pool allows,
// when its requirements bound them at all.
func instanceTypeBound(np profile.NodePool) (int, bool) {
	if len(np.InstanceTypes) > 0 {
		return len(np.InstanceTypes), true
	}
	if len(np.InstanceFamilies) == 0 {
		return 0, false
	}
	sizes := len(np.InstanceCPU)
	if len(np.InstanceSizes) > 0 && (sizes == 0 || len(np.InstanceSizes) < sizes) {
		sizes = len(np.InstanceSizes)
	}
	if sizes == 0 {
		return 0, false
	}
	return len(np.InstanceFamilies) * sizes, true
}

// driftHeld reports whether every pool of a node class has a disruption
// budget for the Drifted reason, so that a new AMI release does not
// replace its nodes whenever Karpenter sees it.
func driftHeld(p *profile.Profile, class string) bool {
	pools := 0
	for _, np := range p.NodePools {
		if np.NodeClass != class {
			continue
		}
		pools++
		held := false
		for _, b := range np.Disruption.Budgets {
			held = held || slices.Contains(b.Reasons, "Drifted")
		}
		if !held {
			return false
		}
	}
	return pools > 0
}

// production says why an environment is a production one, from what its
// profile states: a word "prod" (or "prod2") or "production" in its name
// or its cluster's name ("prod", "shop-prod", "prod_eu"; not "nonprod" or
// "products"), or a node class tag Environment, Env or Stage of that
// value. "" when nothing says so.
func production(env string, p *profile.Profile) string {
	isProd := func(s string) bool {
		for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
			if w == "production" || strings.HasPrefix(w, "prod") && strings.Trim(w[4:], "0123456789") == "" {
				return true // prod, prod2, production
			}
		}
		return false
	}
	switch {
	case isProd(env):
		return fmt.Sprintf("its name %q says so", env)
	case isProd(p.Cluster.Name):
		return fmt.Sprintf("its cluster's name %q says so", p.Cluster.Name)
	}
	for _, n := range names(p.NodeClasses) {
		for _, k := range names(p.NodeClasses[n].Tags) {
			switch strings.ToLower(k) {
			case "environment", "env", "stage":
				if v := p.NodeClasses[n].Tags[k]; isProd(v) {
					return fmt.Sprintf("node class %s is tagged %s=%s", n, k, v)
				}
			}
		}
	}
	return ""
}
