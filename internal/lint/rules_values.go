package lint

import (
	"fmt"
	"slices"
	"strings"

	"github.com/karpgen/karpgen/internal/budget"
	"github.com/karpgen/karpgen/internal/diag"
	"github.com/karpgen/karpgen/internal/facts"
	"github.com/karpgen/karpgen/internal/facts/kubelet"
)

// valuesRules are the rules of the group Values.
var valuesRules = []*Rule{
	{
		ID: "value/quantity", Severity: diag.Error, Group: "Values",
		Summary: "Resource quantities (limits, controller resources, reserved resources, volume sizes, headroom) are valid, and limits and headroom are greater than zero.",
		check: func(c *Context) {
			for p := range c.pools() {
				limits := c.P.NodePools[p].Limits
				for _, r := range names(limits) {
					path := at("nodePools", field(p), "limits", field(r))
					s, ok := quantityString(limits[r])
					switch {
					case !ok || !quantityRE().MatchString(s):
						c.Report(path, `use a quantity such as 40, "500m" or "160Gi"`, "limit %s %q is not a resource quantity", r, fmt.Sprint(limits[r]))
					case !quantityPositive(s):
						c.Report(path, "remove the limit to leave the pool unbounded, or set a positive one", "limit %s %s must be greater than zero: the pool could never launch a node", r, s)
					}
				}
			}
			for p := range c.pools() {
				h := c.P.NodePools[p].Headroom
				if h == nil {
					continue
				}
				for r, v := range map[string]any{"cpu": h.CPU, "memory": h.Memory} {
					if s, ok := quantityString(v); !ok || !quantityRE().MatchString(s) || !quantityPositive(s) {
						c.Report(at("nodePools", field(p), "headroom", r), `use a positive quantity such as "1" or "2Gi"`, "headroom %s %q is not a positive resource quantity", r, fmt.Sprint(v))
					}
				}
			}
			res := c.P.Karpenter.Controller.Resources
			for _, kind := range []string{"requests", "limits"} {
				m := res.Requests
				if kind == "limits" {
					m = res.Limits
				}
				for _, r := range names(m) {
					if s, ok := quantityString(m[r]); !ok || !quantityRE().MatchString(s) {
						c.Report(at("karpenter.controller.resources", kind, field(r)), `use a quantity such as "1" or "1Gi"`, "controller %s %s %q is not a resource quantity", kind, r, fmt.Sprint(m[r]))
					}
				}
			}
			for _, n := range names(c.P.NodeClasses) {
				nc := c.P.NodeClasses[n]
				for i, b := range nc.BlockDevices {
					if b.VolumeSize != "" && !volumeSizeRE().MatchString(b.VolumeSize) {
						c.Report(at("nodeClasses", field(n), "blockDevices", i, "volumeSize"), `use Gi, G, Ti or T, e.g. "100Gi"`, "volume size %q is not a valid EBS volume size", b.VolumeSize)
					}
					if b.VolumeSize == "" && b.SnapshotID == "" {
						c.Report(at("nodeClasses", field(n), "blockDevices", i), "set volumeSize (e.g. \"100Gi\") or snapshotID", "block device %q has neither volumeSize nor snapshotID", b.DeviceName)
					}
				}
			}
		},
	},
	{
		ID: "value/weight", Severity: diag.Error, Group: "Values",
		Summary: "A node pool weight is from 1 to 100.",
		Hint:    "use a weight from 1 to 100; higher weights are tried first",
		check: func(c *Context) {
			for p := range c.pools() {
				if w := c.P.NodePools[p].Weight; w != nil && (*w < 1 || *w > 100) {
					c.Report(at("nodePools", field(p), "weight"), "", "weight %d is outside 1 to 100", *w)
				}
			}
		},
	},
	{
		ID: "value/budget", Severity: diag.Error, Group: "Values",
		Summary: "Disruption budgets give nodes as a count or a percentage, schedule and duration together, and reasons of that version (Unhealthy: 1.15+).",
		check: func(c *Context) {
			for p := range c.pools() {
				for i, b := range c.P.NodePools[p].Disruption.Budgets {
					base := at("nodePools", field(p), "disruption", "budgets", i)
					if !budgetNodesRE().MatchString(b.Nodes) {
						c.Report(at(base, "nodes"), `write a count such as "2" or a percentage such as "10%"`, "budget nodes %q is neither a count nor a percentage (0%% to 100%%)", b.Nodes)
					}
					if (b.Schedule == "") != (b.Duration == "") {
						c.Report(base, `a schedule such as "0 9 * * mon-fri" needs a duration such as "8h", and the other way round`, "budget sets only one of schedule and duration")
					}
					if b.Schedule != "" && !validCron(b.Schedule) {
						c.Report(at(base, "schedule"), `use five cron fields ("0 9 * * mon-fri") or a macro such as "@daily"`, "budget schedule %q is not a cron schedule", b.Schedule)
					}
					for j, r := range b.Reasons {
						if c.Minor == nil || slices.Contains(c.Minor.BudgetReasons, r) {
							continue
						}
						since := facts.Arrival.BudgetReasons[r]
						c.Report(at(base, "reasons", j), "move to Karpenter "+since+" or later, or use one of "+quoteList(c.Minor.BudgetReasons),
							"budget reason %q arrives in Karpenter %s; the profile runs %s", r, since, c.Version)
					}
				}
			}
		},
	},
	{
		ID: "value/time-zone", Severity: diag.Error, Group: "Values",
		Summary: "The time zone is an IANA name, and every budget schedule of the environment can be moved from it to UTC.",
		check: func(c *Context) {
			if c.P.TimeZone == "" {
				return
			}
			loc, err := budget.Zone(c.P.TimeZone)
			if err != nil {
				c.Report(at("timeZone"), `name a zone of the IANA database, such as "Asia/Seoul" or "Europe/Berlin"`, "time zone %v", err)
				return
			}
			for p := range c.pools() {
				for i, b := range c.P.NodePools[p].Disruption.Budgets {
					if b.Schedule == "" || !validCron(b.Schedule) {
						continue // value/budget speaks of it
					}
					if _, err := budget.ToUTC(b, loc); err != nil {
						c.Report(at("nodePools", field(p), "disruption", "budgets", i, "schedule"), "write this schedule in UTC and drop timeZone, or name the weekdays and hours only",
							"budget schedule %q cannot be moved from %s to UTC: %v", b.Schedule, c.P.TimeZone, err)
					}
				}
			}
		},
	},
	{
		ID: "value/consolidation-policy", Severity: diag.Error, Group: "Values",
		Summary: "consolidationPolicy is a v1 policy of that version (WhenUnderutilized was renamed WhenEmptyOrUnderutilized).",
		check: func(c *Context) {
			if c.Minor == nil {
				return
			}
			for p := range c.pools() {
				pol := c.P.NodePools[p].Disruption.ConsolidationPolicy
				if slices.Contains(c.Minor.ConsolidationPolicies, pol) {
					continue
				}
				path := at("nodePools", field(p), "disruption", "consolidationPolicy")
				if pol == "WhenUnderutilized" {
					c.Report(path, `use "WhenEmptyOrUnderutilized" and set consolidateAfter ("0s" keeps the v1beta1 behaviour)`,
						"consolidationPolicy \"WhenUnderutilized\" is the v1beta1 name; Karpenter v1 calls it \"WhenEmptyOrUnderutilized\"")
					continue
				}
				if since := facts.Arrival.ConsolidationPolicies[pol]; since != "" {
					c.Report(path, "move to Karpenter "+since+" or later, or use one of "+quoteList(c.Minor.ConsolidationPolicies),
						"consolidationPolicy %q arrives in Karpenter %s; the profile runs %s", pol, since, c.Version)
					continue
				}
				c.Report(path, "use one of "+quoteList(c.Minor.ConsolidationPolicies), "consolidationPolicy %q does not exist in Karpenter %s", pol, c.Minor.Minor)
			}
		},
	},
	{
		ID: "value/requirement", Severity: diag.Error, Group: "Values",
		Summary: "Requirements use operators of that version with the values they need (In: at least one and at least minValues; Gt/Lt/Gte/Lte: one non-negative integer); capacity types exist in that version.",
		check: func(c *Context) {
			if c.Minor == nil {
				return
			}
			for p, np := range c.pools() {
				for i, r := range np.Requirements {
					checkRequirement(c, at("nodePools", field(p), "requirements", i), r)
				}
				for i, ct := range np.CapacityTypes {
					if !slices.Contains(c.Minor.CapacityTypes, ct) {
						since := facts.Arrival.CapacityTypes[ct]
						c.Report(at("nodePools", field(p), "capacityTypes", i), "move to Karpenter "+since+" or later",
							"capacity type %q arrives in Karpenter %s; the profile runs %s", ct, since, c.Version)
					}
				}
			}
			for _, o := range names(c.P.NodeOverlays) {
				for i, r := range c.P.NodeOverlays[o].Requirements {
					base := at("nodeOverlays", field(o), "requirements", i)
					if r.MinValues != nil {
						c.Report(at(base, "minValues"), "drop minValues", "requirement %q: NodeOverlay requirements take no minValues", r.Key)
					}
					checkRequirement(c, base, r)
				}
			}
		},
	},
	{
		ID: "value/overlay-price", Severity: diag.Error, Group: "Values",
		Summary: "A NodeOverlay sets a price or a priceAdjustment, not both: the CRD refuses the two together.",
		check: func(c *Context) {
			for _, o := range names(c.P.NodeOverlays) {
				if ov := c.P.NodeOverlays[o]; ov.Price != "" && ov.PriceAdjustment != "" {
					c.Report(at("nodeOverlays", field(o), "priceAdjustment"), "drop price or priceAdjustment",
						"NodeOverlay %q sets price %q and priceAdjustment %q; Karpenter takes one", o, ov.Price, ov.PriceAdjustment)
				}
			}
		},
	},
	{
		ID: "value/ami", Severity: diag.Error, Group: "Values",
		Summary: "A node class selects its AMI one way: an alias family@version of a family that version supports (Windows only @latest), or ids, names, tags or an SSM parameter with an AMI family.",
		check: func(c *Context) {
			for _, n := range names(c.P.NodeClasses) {
				a := c.P.NodeClasses[n].AMI
				base := at("nodeClasses", field(n), "ami")
				ways := 0
				for _, set := range []bool{a.Alias != "", len(a.IDs) > 0, len(a.Names) > 0, len(a.Tags) > 0, a.SSMParameter != ""} {
					if set {
						ways++
					}
				}
				switch {
				case ways == 0:
					c.Report(base, `set ami.alias, e.g. "al2023@latest"`, "node class %q selects no AMI", n)
				case a.Alias != "" && ways > 1:
					c.Report(at(base, "alias"), "keep only the alias, or drop it", "node class %q sets ami.alias with other selectors; an alias must be the only AMI selector", n)
				case a.Alias == "" && a.Family == "":
					c.Report(base, `set ami.family (e.g. "AL2023"), or use an alias`, "node class %q selects AMIs without an alias and needs ami.family", n)
				}
				for i, id := range a.IDs {
					if !amiIDRE().MatchString(id) {
						c.Report(at(base, "ids", i), `AMI ids look like "ami-0abc123"`, "AMI id %q is not an AMI id", id)
					}
				}
				if a.Alias != "" && c.Minor != nil {
					c.checkAlias(base, a.Alias, a.Family)
				}
			}
		},
	},
	{
		ID: "value/kubelet", Severity: diag.Error, Group: "Values",
		Summary: "From Karpenter 1.15, kubelet fields and values are those of the upstream KubeletConfiguration, and maxPods and reservation expressions compile and give a value Karpenter takes on every instance type; before 1.15, only the EC2NodeClass's fixed subset.",
		check: func(c *Context) {
			if c.Minor == nil {
				return
			}
			for _, n := range names(c.P.NodeClasses) {
				k := c.P.NodeClasses[n].Kubelet
				if k == nil {
					continue
				}
				base := at("nodeClasses", field(n), "kubelet")
				open := facts.Arrival.OpenKubelet
				if !c.Minor.OpenKubelet {
					for _, name := range names(k.Extra) {
						c.Report(at(base, field(name)), "remove it, or move to Karpenter "+open+" or later",
							"kubelet field %q arrives in Karpenter %s, whose EC2NodeClass takes any KubeletConfiguration field; the %s EC2NodeClass takes only %s",
							name, open, c.Minor.Minor, strings.Join(kubelet.Subset(), ", "))
					}
					if k.MaxPodsExpr != "" {
						c.Report(at(base, "maxPods"), "give a count, or move to Karpenter "+open+" or later",
							"kubelet maxPods %q is an expression; expressions arrive in Karpenter %s", k.MaxPodsExpr, open)
					}
					continue
				}
				for _, p := range kubelet.Check(k.Fields()) {
					c.Report(at(append([]any{base}, p.Path...)...), p.Hint, "%s", p.Message)
				}
				if k.MaxPodsExpr != "" {
					if _, err := kubelet.Compile(k.MaxPodsExpr); err != nil {
						c.Report(at(base, "maxPods"), "give a count, or an expression over "+kubelet.VarList()+` such as "min(max_pods, 110)"`,
							"kubelet maxPods %q is not an expression Karpenter can evaluate: %v", k.MaxPodsExpr, err)
					}
				}
				c.checkExpressions(base, k)
			}
		},
	},
	{
		ID: "value/node-class", Severity: diag.Error, Group: "Values",
		Summary: "Node class tags avoid the keys Karpenter sets; kubelet settings are consistent (eviction keys, reserved resources, image GC thresholds).",
		check: func(c *Context) {
			for _, n := range names(c.P.NodeClasses) {
				nc := c.P.NodeClasses[n]
				base := at("nodeClasses", field(n))
				for _, k := range names(nc.Tags) {
					if k == "" || k == "eks:eks-cluster-name" || strings.HasPrefix(k, "kubernetes.io/cluster") ||
						k == "karpenter.sh/nodepool" || k == "karpenter.sh/nodeclaim" || k == "karpenter.k8s.aws/ec2nodeclass" {
						c.Report(at(base, "tags", field(k)), "drop the tag: Karpenter sets it, and the controller's IAM conditions depend on its value", "tag %q is restricted by the EC2NodeClass CRD", k)
					}
				}
				if nc.Kubelet != nil {
					c.checkKubelet(at(base, "kubelet"), nc)
				}
				roots := 0
				for _, b := range nc.BlockDevices {
					if b.RootVolume != nil && *b.RootVolume {
						roots++
					}
				}
				if roots > 1 {
					c.Report(at(base, "blockDevices"), "mark one block device as rootVolume", "node class %q marks %d block devices as rootVolume", n, roots)
				}
			}
		},
	},
	{
		ID: "value/selector-terms", Severity: diag.Error, Group: "Values",
		Summary: "Subnet and security group selector terms are what the EC2NodeClass CRD accepts: at least one term, each of tags (no empty keys or values), an id alone, or (security groups) a name alone.",
		Hint:    `e.g. subnetSelectorTerms: [{tags: {"karpenter.sh/discovery": "my-cluster"}}] or [{id: "subnet-0123456789abcdef0"}]`,
		check: func(c *Context) {
			for _, n := range names(c.P.NodeClasses) {
				nc := c.P.NodeClasses[n]
				base := at("nodeClasses", field(n))
				c.checkTerms(at(base, "subnetSelectorTerms"), "subnet", nc.SubnetSelectorTerms, subnetIDRE(), false)
				c.checkTerms(at(base, "securityGroupSelectorTerms"), "security group", nc.SecurityGroupSelectorTerms, securityGroupIDRE(), true)
			}
		},
	},
	{
		ID: "value/ami-kubernetes", Severity: diag.Error, Group: "Values",
		Summary: "The AMI family has AMIs for the cluster's Kubernetes version (Amazon Linux 2 has none for 1.33 and later).",
		check: func(c *Context) {
			k := c.P.Cluster.KubernetesVersion
			for _, n := range names(c.P.NodeClasses) {
				a := c.P.NodeClasses[n].AMI
				fam := amiFamily(a)
				if max, ok := facts.AMIKubernetesMax[fam]; ok && facts.MinorLess(max, k) {
					path := at("nodeClasses", field(n), "ami", "family")
					if a.Alias != "" {
						path = at("nodeClasses", field(n), "ami", "alias")
					}
					c.Report(path, "use al2023 (alias \"al2023@latest\"), or keep the cluster on Kubernetes "+max,
						"node class %q uses %s AMIs, which EKS publishes up to Kubernetes %s; the cluster runs %s", n, familyName(fam), max, k)
				}
			}
		},
	},
	{
		ID: "value/ami-support", Severity: diag.Warning, Group: "Values",
		Summary: "The AMI family's EKS optimized AMIs are in support on the day vet runs (Amazon Linux 2's ended on 2025-11-26).",
		check: func(c *Context) {
			for _, n := range names(c.P.NodeClasses) {
				a := c.P.NodeClasses[n].AMI
				fam := amiFamily(a)
				if end, ok := facts.AMISupportEnds[fam]; ok && c.Today != "" && c.Today >= end {
					path := at("nodeClasses", field(n), "ami", "family")
					if a.Alias != "" {
						path = at("nodeClasses", field(n), "ami", "alias")
					}
					c.Report(path, "move to al2023 (alias \"al2023@latest\") or bottlerocket",
						"node class %q uses %s AMIs, whose support ended on %s: no new AMI, no fix, security ones included", n, familyName(fam), end)
				}
			}
		},
	},
	{
		ID: "value/ami-release", Severity: diag.Error, Group: "Values",
		Summary: "A pinned AMI release (al2023@vYYYYMMDD) is not older than the cluster's Kubernetes minor: Karpenter resolves the alias for the cluster's minor, and a release built before upstream released that minor has no image for it. `upgrade --kubernetes-to` moves such an alias first, as a step.",
		check: func(c *Context) {
			k := c.P.Cluster.KubernetesVersion
			for _, n := range names(c.P.NodeClasses) {
				a := c.P.NodeClasses[n].AMI
				fam := amiFamily(a)
				if release, released, lacks := facts.AMIReleaseLacks(a.Alias, k); lacks {
					hint := "use " + fam + "@latest, or pin a release built for " + k
					if param := facts.AMIRecommendedName(fam, k); param != "" {
						hint += ": `aws ssm get-parameter --name " + param + " --query Parameter.Value --output text` names the newest, whose v-suffix is the release"
					}
					c.Report(at("nodeClasses", field(n), "ami", "alias"), hint,
						"node class %q pins AMI release %s of %s, before Kubernetes %s was released (%s): it has no image for the cluster's %s, and no node would launch", n, a.Alias, release, k, released, k)
				}
			}
		},
	},
	{
		ID: "value/user-data", Severity: diag.Error, Group: "Values",
		Summary: "userData is in the form its AMI family reads (TOML for Bottlerocket; for AL2023 a shell script, a nodeadm NodeConfig or MIME multi-part), and with the part Karpenter adds fits the 16 KiB of user data EC2 accepts.",
		Hint:    "for AL2023 write a shell script, a NodeConfig (apiVersion: node.eks.aws/v1alpha1) or a MIME multi-part document; for Bottlerocket, TOML settings",
		check: func(c *Context) {
			for _, n := range names(c.P.NodeClasses) {
				nc := c.P.NodeClasses[n]
				if nc.UserData == "" {
					continue
				}
				var err error
				switch amiFamily(nc.AMI) {
				case "bottlerocket":
					err = bottlerocketUserData(nc.UserData)
				case "al2023":
					err = al2023UserData(nc.UserData)
				}
				if err != nil {
					c.Report(at("nodeClasses", field(n), "userData"), "", "node class %q: %v", n, err)
				}
				c.userDataSize(n, nc)
			}
		},
	},
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
}
