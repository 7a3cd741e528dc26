package doctor

import (
	"fmt"
	"maps"
	"slices"
	"strings"

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
							"tag the node subnets: "+c.tagFix(terms, "ec2 create-tags --resources <subnet-id>", "vpc"))
					}
					continue
				}
				for _, z := range zones {
					free, ok := byZone[z]
					switch {
					case !ok:
						c.report("node pool "+pool+" zone "+z, "a subnet in "+z+" matching "+termsText(terms), "none",
							"tag a subnet of "+z+": "+c.tagFix(terms, "ec2 create-tags --resources <subnet-id>", "vpc"))
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
						"tag the cluster's node security group: "+c.tagFix(terms, "ec2 create-tags --resources <sg-id>", "eks"))
				}
			}
		},
	},
	{
		ID: "doctor/node-security-groups", Severity: diag.Error,
		Summary: "Karpenter's nodes carry a security group the managed node groups' nodes carry (their launch template's, else the cluster security group): a node security group admits CoreDNS and pod traffic only from its own members.",
		run: func(c *checkRun) {
			if c.dry {
				c.reads = append(c.reads, "eks-cluster.json", "ec2-security-groups.json") // and every node group's files, which the script captures in a loop
				return
			}
			var sg ec2SecurityGroups
			if !c.load("ec2-security-groups.json", &sg, "security groups", "the VPC's security groups", "") {
				return
			}
			cl, err := Live(c.e, c.s)
			if err != nil {
				c.err = err
				return
			}
			// What the node groups' nodes carry, by group.
			carried := map[string][]string{}
			for _, g := range slices.Sorted(maps.Keys(cl.NodeGroups)) {
				if groups, _, ok := cl.SecurityGroupsOf(cl.NodeGroups[g]); ok {
					carried[g] = groups
				}
			}
			if len(carried) == 0 {
				return
			}
			for _, class := range slices.Sorted(maps.Keys(c.e.Profile.NodeClasses)) {
				terms := c.e.Profile.NodeClasses[class].SecurityGroupSelectorTerms
				var selected []string
				for _, g := range sg.SecurityGroups {
					if matchesTerms(terms, g.GroupID, g.GroupName, g.Tags) {
						selected = append(selected, g.GroupID)
					}
				}
				if len(selected) == 0 {
					continue // doctor/security-groups says so
				}
				for _, g := range slices.Sorted(maps.Keys(carried)) {
					if slices.ContainsFunc(carried[g], func(id string) bool { return slices.Contains(selected, id) }) {
						continue
					}
					what := strings.Join(selected, ", ")
					if len(selected) == 1 && selected[0] == cl.ClusterSecurityGroup {
						what += " (the cluster security group)"
					}
					c.report("node class "+class, "a security group node group "+g+"'s nodes carry: "+strings.Join(carried[g], ", "), what,
						"tag those groups instead, through their owner (karpgen migrate "+c.e.Name+" --state says how): pods on Karpenter's nodes cannot reach CoreDNS or the pods on node group "+g+"'s nodes otherwise")
				}
			}
		},
	},
}
