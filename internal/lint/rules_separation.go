package lint

import "github.com/karpgen/karpgen/internal/diag"

// separationRules are the rules of the group Workload separation.
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
