package doctor

import (
	"fmt"
	"maps"
	"slices"

	"github.com/karpgen/karpgen/internal/diag"
)

// networkChecks compare the cluster, its subnets and security groups with what the profile selects.
var networkChecks = []*Check{
	{
		ID: "doctor/kubernetes-version", Severity: diag.Error,
		Summary: "The cluster runs the profile's Kubernetes version.",
		run: func(c *checkRun) {
			var cl eksCluster
			n := c.e.Names
			if !c.load("eks-cluster.json", &cl, "cluster "+n.Cluster, "an EKS cluster", "check cluster.name and cluster.region in the profile") {
				return
			}
			if want := c.e.Profile.Cluster.KubernetesVersion; cl.Cluster.Version != want {
				c.report("cluster "+n.Cluster, "Kubernetes "+want, "Kubernetes "+cl.Cluster.Version,
					fmt.Sprintf("set cluster.kubernetesVersion: %q in the profile and render, or upgrade the cluster", cl.Cluster.Version))
			}
		},
	},
	{
		ID: "doctor/subnets", Severity: diag.Error,
		Summary: "Every zone of every pool has a subnet its node class selects (tags, with \"*\" for any value, or id), with free addresses.",
		run: func(c *checkRun) {
			var sn ec2Subnets
			if !c.load("ec2-subnets.json", &sn, "subnets", "the VPC's subnets", "") {
				return
			}
			p := c.e.Profile
			for _, pool := range slices.Sorted(maps.Keys(p.NodePools)) {
				np := p.NodePools[pool]
				terms := p.NodeClasses[np.NodeClass].SubnetSelectorTerms
				byZone := map[string]int{}
				for _, s := range sn.Subnets {
					if matchesTerms(terms, s.SubnetID, "", s.Tags) {
						byZone[s.AvailabilityZone] += s.AvailableIPAddressCount
					}
				}
				zones := np.Zones
				if len(zones) == 0 {
					if len(byZone) == 0 {
						c.report("node pool "+pool, "a subnet matching "+termsText(terms), "none",
							"tag the node subnets: "+tagFix(terms, "ec2 create-tags --resources <subnet-id>"))
					}
					continue
				}
				for _, z := range zones {
					free, ok := byZone[z]
					switch {
					case !ok:
						c.report("node pool "+pool+" zone "+z, "a subnet in "+z+" matching "+termsText(terms), "none",
							"tag a subnet of "+z+": "+tagFix(terms, "ec2 create-tags --resources <subnet-id>"))
					case free == 0:
						c.report("node pool "+pool+" zone "+z, "free addresses in the matching subnets of "+z, "0 free addresses",
							"add a subnet (or a secondary CIDR) in "+z+" and tag it")
					}
				}
			}
		},
	},
	{
		ID: "doctor/security-groups", Severity: diag.Error,
		Summary: "Every node class selects at least one security group (tags, id or name).",
		run: func(c *checkRun) {
			var sg ec2SecurityGroups
			if !c.load("ec2-security-groups.json", &sg, "security groups", "the VPC's security groups", "") {
				return
			}
			for _, class := range slices.Sorted(maps.Keys(c.e.Profile.NodeClasses)) {
				terms := c.e.Profile.NodeClasses[class].SecurityGroupSelectorTerms
				found := false
				for _, g := range sg.SecurityGroups {
					found = found || matchesTerms(terms, g.GroupID, g.GroupName, g.Tags)
				}
				if !found {
					c.report("node class "+class, "a security group matching "+termsText(terms), "none",
						"tag the cluster's node security group: "+tagFix(terms, "ec2 create-tags --resources <sg-id>"))
				}
			}
		},
	},
}
