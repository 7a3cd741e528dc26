package lint

import (
	"fmt"
	"strings"

	"github.com/karpgen/karpgen/internal/diag"
	"github.com/karpgen/karpgen/internal/facts"
	"github.com/karpgen/karpgen/internal/facts/instancetypes"
)

// placeRules are the rules of the group Place.
var placeRules = []*Rule{
	{
		ID: "place/instance-types", Severity: diag.Error, Group: "Place",
		Summary: "A pool's requirements (families, categories, generations, sizes, architectures, instance types) match at least one instance type of Karpenter's own tables; otherwise Karpenter never launches a node for it.",
		check: func(c *Context) {
			for pool, np := range c.pools() {
				if len(instancetypes.Select(np, c.E.Names.Region).Types) > 0 {
					continue
				}
				r, before, _ := instancetypes.Emptying(np)
				c.Report(at("nodePools", field(pool)), fmt.Sprintf("widen or drop %s %s [%s]", r.Key, r.Operator, strings.Join(r.Values, ", ")),
					"pool %s matches none of the %d instance types Karpenter knows: %s %s [%s] leaves none of the %d that the requirements before it allow, and Karpenter would never launch a node for it",
					pool, len(instancetypes.All()), r.Key, r.Operator, strings.Join(r.Values, ", "), before)
			}
		},
	},
	{
		ID: "place/node-group-size", Severity: diag.Error, Group: "Place",
		Summary: "A node group's instanceType is one Karpenter's tables know, and comes with its size (and the size with it): simulate packs the group's pods into that many nodes of that type.",
		check: func(c *Context) {
			for _, g := range names(c.P.NodeGroups) {
				ng := c.P.NodeGroups[g]
				switch {
				case ng.InstanceType != "" && ng.Size == nil:
					c.Report(at("nodeGroups", field(g), "instanceType"), "add its desired size: `aws eks describe-nodegroup --query nodegroup.scalingConfig.desiredSize`",
						"node group %s names instance type %s but no size, so its capacity is unknown", g, ng.InstanceType)
				case ng.InstanceType == "" && ng.Size != nil:
					c.Report(at("nodeGroups", field(g), "size"), "add its instance type: `aws eks describe-nodegroup --query nodegroup.instanceTypes`",
						"node group %s has a size but no instance type, so its capacity is unknown", g)
				case ng.InstanceType != "":
					if _, ok := instancetypes.CapacityOf(ng.InstanceType); !ok {
						hint := ""
						if s := closest(ng.InstanceType, typeNames()); s != "" {
							hint = fmt.Sprintf("did you mean %q?", s)
						}
						c.Report(at("nodeGroups", field(g), "instanceType"), hint, "node group %s: instance type %q is not one Karpenter's tables know", g, ng.InstanceType)
					}
				}
			}
		},
	},
	{
		ID: "place/headroom-image", Severity: diag.Warning, Group: "Place",
		Summary: "In the aws-cn partition, a pool's headroom image is not pulled from registry.k8s.io, which nodes there usually cannot reach.",
		Hint:    "mirror the pause image into a registry the nodes reach (your ECR in the region) and name it in headroom.image",
		check: func(c *Context) {
			if c.E.Names.Partition != "aws-cn" {
				return
			}
			for pool := range c.pools() {
				h := c.P.NodePools[pool].Headroom
				if h != nil && strings.HasPrefix(h.Image, "registry.k8s.io/") {
					c.Report(at("nodePools", field(pool), "headroom"), "", "pool %s keeps headroom with %s, from registry.k8s.io, which nodes in aws-cn usually cannot pull", pool, h.Image)
				}
			}
		},
	},
	{
		ID: "place/region", Severity: diag.Error, Group: "Place",
		Summary: "cluster.region is a real AWS region.",
		Hint:    "use a region name such as \"ap-northeast-2\"",
		check: func(c *Context) {
			r := c.P.Cluster.Region
			if _, ok := facts.Regions[r]; ok {
				return
			}
			hint := ""
			if s := closest(r, names(facts.Regions)); s != "" {
				hint = fmt.Sprintf("did you mean %q?", s)
			}
			c.Report("cluster.region", hint, "region %q is not an AWS region", r)
		},
	},
	{
		ID: "place/zone", Severity: diag.Error, Group: "Place",
		Summary: "Every zone of a node pool is a zone of the cluster's region (checked against each region's zones where karpgen knows them).",
		Hint:    "list zones of the cluster's region, e.g. \"<region>a\"",
		check: func(c *Context) {
			region := c.P.Cluster.Region
			for pool := range c.pools() {
				for i, z := range c.P.NodePools[pool].Zones {
					zr := facts.RegionOfZone(z)
					exists, known := facts.ZoneExists(z)
					switch {
					case zr == region && known && !exists:
						c.Report(at("nodePools", field(pool), "zones", i), "use one of "+strings.Join(facts.ZoneNames(region), ", "),
							"zone %q does not exist: region %s has the zones %s; no node would ever launch there", z, region, strings.Join(facts.ZoneNames(region), ", "))
					case zr == region:
					case zr == "":
						c.Report(at("nodePools", field(pool), "zones", i), fmt.Sprintf("zones of %s look like %q", region, region+"a"),
							"zone %q is not an availability zone name", z)
					default:
						c.Report(at("nodePools", field(pool), "zones", i), fmt.Sprintf("use zones of %s such as %q, or move the cluster to %s", region, region+"a", zr),
							"zone %q is in region %s, not in the cluster's region %s: no node would ever launch there", z, zr, region)
					}
				}
			}
		},
	},
	{
		ID: "place/partition", Severity: diag.Error, Group: "Place",
		Summary: "cluster.partition, when set, is the partition of the region (aws, aws-cn, aws-us-gov).",
		Hint:    "drop cluster.partition: it follows the region",
		check: func(c *Context) {
			if !c.Src.Has("cluster.partition") {
				return
			}
			want := facts.PartitionOf(c.P.Cluster.Region)
			if c.P.Cluster.Partition != want {
				c.Report("cluster.partition", "", "partition %q does not match region %s, which is in partition %q: every ARN would be wrong",
					c.P.Cluster.Partition, c.P.Cluster.Region, want)
			}
		},
	},
}
