package lint

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/karpgen/karpgen/generators"
	"github.com/karpgen/karpgen/internal/budget"
	"github.com/karpgen/karpgen/internal/diag"
	"github.com/karpgen/karpgen/internal/facts"
	"github.com/karpgen/karpgen/internal/facts/instancetypes"
	"github.com/karpgen/karpgen/internal/facts/kubelet"
)

// opsRules are the rules of the group Operations.
var opsRules = []*Rule{
	{
		ID: "ops/spot-interruption", Severity: diag.Warning, Group: "Operations",
		Summary: "A pool that may launch spot instances has interruption handling (karpenter.interruptionQueue): spot reclaims come with two minutes' notice.",
		Hint:    "set karpenter.interruptionQueue: true, or drop \"spot\" from the pool's capacity types",
		check: func(c *Context) {
			if c.P.Karpenter.InterruptionQueue {
				return
			}
			for p := range c.pools() {
				if slices.Contains(c.P.NodePools[p].CapacityTypes, "spot") {
					c.Report(at("nodePools", field(p), "capacityTypes"), "",
						"pool %q may launch spot instances, but the environment has no interruption queue: the two-minute reclaim notice reaches no one and pods are killed without draining", p)
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
		ID: "ops/budget-without-effect", Severity: diag.Warning, Group: "Operations",
		Summary: "Every scheduled budget can take effect: no budget in force at all hours is already as tight for its reasons.",
		Hint:    "a scheduled budget can only tighten what holds at all hours: to allow more in a window, make the budget without a schedule the looser one and schedule the tight one for the hours outside the window",
		check: func(c *Context) {
			for p, np := range c.pools() {
				budgets := np.Disruption.Budgets
				for i, b := range budgets {
					if b.Schedule == "" || !validCron(b.Schedule) || budget.NeverComes(b.Schedule) {
						continue // a schedule that never comes is ops/budget-never-comes
					}
					base := at("nodePools", field(p), "disruption", "budgets", i)
					for j, u := range budgets {
						if u.Schedule == "" && covers(u.Reasons, b.Reasons) && atLeastAsTight(u.Nodes, b.Nodes) {
							c.Report(base, "", "budget %d of pool %q (%s during %q) never takes effect: budget %d (%s, at all hours%s) is at least as tight, and Karpenter holds the tightest budget in force",
								i, p, b.Nodes, b.Schedule, j, u.Nodes, reasonsText(u.Reasons))
							break
						}
					}
				}
			}
		},
	},
	{
		ID: "ops/budget-never-comes", Severity: diag.Error, Group: "Operations",
		Summary: "A budget's schedule comes: Karpenter holds a budget whose schedule never comes (the 30th of February) in force at every moment, so its limit holds for good.",
		Hint:    "give a day and month that exist, or drop the schedule and its duration if the limit is meant for all hours",
		check: func(c *Context) {
			for p, np := range c.pools() {
				for i, b := range np.Disruption.Budgets {
					if b.Schedule == "" || !validCron(b.Schedule) || !budget.NeverComes(b.Schedule) {
						continue
					}
					c.Report(at("nodePools", field(p), "disruption", "budgets", i, "schedule"), "",
						"budget schedule %q of pool %q never comes, and Karpenter then holds the budget (%s%s) in force at every hour, not never",
						b.Schedule, p, b.Nodes, reasonsText(b.Reasons))
				}
			}
		},
	},
	{
		ID: "ops/budget-unlimited", Severity: diag.Warning, Group: "Operations",
		Summary: "A pool that lists budgets limits every disruption reason at every hour: Karpenter adds its default of 10% only to a pool that lists none.",
		Hint:    `add {nodes: "10%"} (or the limit you mean) to the pool's budgets, for the hours and reasons no other budget covers`,
		check: func(c *Context) {
			if c.Minor == nil {
				return
			}
			for p, np := range c.pools() {
				week, ok := budgetWeek(c, np)
				if !ok {
					continue
				}
				var free []string
				for _, r := range week.Reasons {
					switch n := unlimitedHours(week.Hours[r]); {
					case n == len(week.Hours[r]):
						free = append(free, r+" (at all hours)")
					case n > 0:
						free = append(free, fmt.Sprintf("%s (%d of the week's 168 hours)", r, n))
					}
				}
				if len(free) > 0 {
					c.Report(at("nodePools", field(p), "disruption", "budgets"), "",
						"pool %q lists budgets, so Karpenter adds no default: nothing limits how many of its nodes it disrupts at once for %s", p, strings.Join(free, ", "))
				}
			}
		},
	},
	{
		ID: "ops/budget-forceful", Severity: diag.Note, Group: "Operations",
		Summary: "A pool whose budgets block disruption at some hours still has its nodes replaced at those hours by what no budget holds back: expiry (expireAfter is forceful in v1), spot interruptions and node repair.",
		check: func(c *Context) {
			if c.Minor == nil || !slices.Contains(c.Minor.BudgetReasons, "Drifted") {
				return
			}
			for p, np := range c.pools() {
				if _, ok := budgetWeek(c, np); !ok {
					continue // the zone or a schedule is refused by its own rule
				}
				what := generators.Unbudgeted(c.P, np, c.Minor.BudgetReasons)
				if len(what) == 0 {
					continue
				}
				hint := "budgets cannot hold these back; drains still wait for PodDisruptionBudgets unless terminationGracePeriod is set"
				if np.ExpireAfter != "" && np.ExpireAfter != "Never" {
					hint = "expireAfter: \"Never\" keeps expiry out of the blocked hours (nodes are then replaced by drift and consolidation only); " + hint
				}
				c.Report(at("nodePools", field(p), "disruption", "budgets"), hint,
					"pool %q's budgets block disruption at some hours, but at those hours its nodes are still replaced by %s", p, generators.JoinAnd(what))
			}
		},
	},
	{
		ID: "ops/budget-drift-never", Severity: diag.Warning, Group: "Operations",
		Summary: "A pool whose node class follows a moving AMI alias (@latest) lets drift replace its nodes in some hour of the week.",
		Hint:    `open a window for Drifted, e.g. {nodes: "0", reasons: ["Drifted"], schedule: "0 9 * * mon-fri", duration: "10h"} with timeZone set holds drift back only in working hours; or pin the alias and roll it forward on purpose`,
		check: func(c *Context) {
			if c.Minor == nil || !slices.Contains(c.Minor.BudgetReasons, "Drifted") {
				return
			}
			for p, np := range c.pools() {
				alias := c.P.NodeClasses[np.NodeClass].AMI.Alias
				if !strings.HasSuffix(alias, "@latest") {
					continue
				}
				week, ok := budgetWeek(c, np)
				if !ok || slices.ContainsFunc(week.Hours["Drifted"], func(l budget.Limit) bool { return l.String() != "0" }) {
					continue
				}
				c.Report(at("nodePools", field(p), "disruption", "budgets"), "",
					"no hour of the week lets drift replace pool %q's nodes, while its node class %q follows AMI alias %q: each AMI release drifts its nodes, which keep the AMI they launched with until they expire (%s)",
					p, np.NodeClass, alias, np.ExpireAfter)
			}
		},
	},
	{
		ID: "ops/budget-time-zone", Severity: diag.Warning, Group: "Operations",
		Summary: "A budget window that opens in the morning on some weekdays, in a profile without timeZone for a region far from UTC, is written in UTC on purpose.",
		check: func(c *Context) {
			tz, known := facts.RegionTimeZones[c.P.Cluster.Region]
			if c.P.TimeZone != "" || !known {
				return
			}
			loc, err := budget.Zone(tz)
			if err != nil {
				return
			}
			offs := budget.Offsets(loc)
			if off := offs[len(offs)-1]; off < 3*3600 && offs[0] > -3*3600 {
				return
			}
			_, off := time.Date(budget.ReferenceYear, 1, 15, 12, 0, 0, 0, loc).Zone()
			for p, np := range c.pools() {
				for i, b := range np.Disruption.Budgets {
					hours, everyDay, err := budget.Starts(b.Schedule)
					if b.Schedule == "" || err != nil || everyDay || len(hours) != 1 || hours[0] < 6 || hours[0] > 10 {
						continue
					}
					local := ((hours[0]*3600+off)%86400 + 86400) % 86400 / 3600
					c.Report(at("nodePools", field(p), "disruption", "budgets", i, "schedule"),
						fmt.Sprintf("set timeZone: %q to write schedules in local time (karpgen writes the UTC ones); a window meant in UTC says so with timeZone: \"UTC\"", tz),
						"budget schedule %q of pool %q reads as working hours, but Karpenter reads it in UTC: in %s, the zone of %s, the window opens at %02d:00", b.Schedule, p, tz, c.P.Cluster.Region, local)
				}
			}
		},
	},
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
