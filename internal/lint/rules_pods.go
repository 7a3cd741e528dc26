package lint

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/karpgen/karpgen/internal/diag"
	"github.com/karpgen/karpgen/internal/facts"
	"github.com/karpgen/karpgen/internal/facts/instancetypes"
	"github.com/karpgen/karpgen/internal/facts/kubelet"
)

var podRules = []*Rule{
	{
		ID: "ops/gate-needs", Severity: diag.Warning, Group: "Operations",
		Summary: "An AWS feature gate that acts only through a chart feature gate has that gate on (rebootForRepair reboots nodes for node repair, which needs nodeRepair).",
		check: func(c *Context) {
			for _, g := range names(c.P.Karpenter.AWSFeatureGates) {
				need, ok := facts.GateNeeds[g]
				if !ok || !c.P.Karpenter.AWSFeatureGates[g] || c.P.Karpenter.FeatureGates[need] || c.Minor == nil {
					continue
				}
				c.Report(at("karpenter.awsFeatureGates", field(g)), fmt.Sprintf("turn on karpenter.featureGates.%s, or turn %s off", need, g),
					"AWS feature gate %s does nothing without the feature gate %s, which is off (and the controller's policy leaves ec2:RebootInstances out)", g, need)
			}
		},
	},
	{
		ID: "ops/max-pods", Severity: diag.Warning, Group: "Operations",
		Summary: "kubelet maxPods (a count, or from 1.15 an expression, evaluated per instance type) stays within what the VPC CNI can address on every instance type the pool may launch; past it pods wait without an IP.",
		Hint:    `lower maxPods, or (Karpenter 1.15+) write it as an expression such as "min(max_pods, 110)"; with the VPC CNI's prefix delegation on, the limit is higher and this warning does not apply`,
		check: func(c *Context) {
			for pool, np := range c.pools() {
				nc, ok := c.P.NodeClasses[np.NodeClass]
				if !ok || nc.Kubelet == nil || nc.Kubelet.MaxPods == nil && nc.Kubelet.MaxPodsExpr == "" {
					continue
				}
				var expr *kubelet.Expr
				if nc.Kubelet.MaxPods == nil {
					if c.Minor == nil || !c.Minor.OpenKubelet {
						continue // value/kubelet refuses the expression
					}
					var err error
					if expr, err = kubelet.Compile(nc.Kubelet.MaxPodsExpr); err != nil {
						continue // value/kubelet reports it
					}
				}
				value := func(t instancetypes.Type) (int64, bool) {
					if expr == nil {
						return int64(*nc.Kubelet.MaxPods), true
					}
					return expr.Eval(kubelet.Vars{DefaultENIs: int64(t.ENIs), IPsPerENI: int64(t.IPv4PerENI), MaxPods: int64(t.ENIMaxPods()), InstanceType: t.Name})
				}
				var over []instancetypes.Type
				var worst instancetypes.Type
				var worstValue int64
				sel := instancetypes.Select(np, c.E.Names.Region)
				types := sel.Types
				for _, t := range types {
					v, ok := value(t)
					if !ok || v <= int64(t.ENIMaxPods()) {
						continue
					}
					if len(over) == 0 || t.ENIMaxPods() < worst.ENIMaxPods() {
						worst, worstValue = t, v
					}
					over = append(over, t)
				}
				if len(over) == 0 {
					continue
				}
				path := at("nodeClasses", field(np.NodeClass), "kubelet", "maxPods")
				written := fmt.Sprintf("%q", nc.Kubelet.MaxPodsExpr)
				if nc.Kubelet.MaxPods != nil {
					written = strconv.Itoa(*nc.Kubelet.MaxPods)
				}
				unevaluated := ""
				if len(sel.Unevaluated) > 0 {
					unevaluated = " (the tables cannot apply " + strings.Join(sel.Unevaluated, ", ") + ")"
				}
				c.Report(path, "",
					"pool %s: kubelet maxPods %s exceeds what the VPC CNI can address on %d of the %d instance types the pool may launch%s (%s: %d pods, maxPods gives %d); pods past it wait without an IP (karpenter-provider-aws#7989)",
					pool, written, len(over), len(types), unevaluated, worst.Name, worst.ENIMaxPods(), worstValue)
			}
		},
	},
}
