package lint

import (
	"fmt"

	"github.com/karpgen/karpgen/internal/diag"
	"github.com/karpgen/karpgen/internal/profile"
)

type taintList struct {
	base   string
	taints []profile.Taint
}

func (c *Context) taintPaths() []taintList {
	var out []taintList
	for _, g := range names(c.P.NodeGroups) {
		out = append(out, taintList{at("nodeGroups", field(g), "taints"), c.P.NodeGroups[g].Taints})
	}
	for p, np := range c.pools() {
		out = append(out, taintList{at("nodePools", field(p), "taints"), np.Taints})
		out = append(out, taintList{at("nodePools", field(p), "startupTaints"), np.StartupTaints})
	}
	return out
}

func unknownRef(what, name string, known []string) (string, string) {
	hint := "known: " + quoteList(known)
	if s := closest(name, known); s != "" {
		hint = fmt.Sprintf("did you mean %q? (known: %s)", s, quoteList(known))
	}
	return fmt.Sprintf("%s %q does not exist", what, name), hint
}

var refRules = []*Rule{
	{
		ID: "ref/node-class", Severity: diag.Error, Group: "References",
		Summary: "Every node pool names a node class of the profile.",
		check: func(c *Context) {
			for p := range c.pools() {
				nc := c.P.NodePools[p].NodeClass
				if _, ok := c.P.NodeClasses[nc]; !ok {
					msg, hint := unknownRef("node class", nc, names(c.P.NodeClasses))
					c.Report(at("nodePools", field(p), "nodeClass"), hint, "%s (named by node pool %q)", msg, p)
				}
			}
		},
	},
	{
		ID: "ref/node-group", Severity: diag.Error, Group: "References",
		Summary: "karpenter.controller.nodeGroup names a node group of the profile.",
		check: func(c *Context) {
			g := c.P.Karpenter.Controller.NodeGroup
			if g == "" {
				return
			}
			if _, ok := c.P.NodeGroups[g]; !ok {
				msg, hint := unknownRef("node group", g, names(c.P.NodeGroups))
				c.Report("karpenter.controller.nodeGroup", hint, "%s", msg)
			}
		},
	},
	{
		ID: "ref/addon-group", Severity: diag.Error, Group: "References",
		Summary: "addons.nodeGroup names a node group of the profile.",
		check: func(c *Context) {
			g := c.P.Addons.NodeGroup
			if _, ok := c.P.NodeGroups[g]; g != "" && !ok {
				msg, hint := unknownRef("node group", g, names(c.P.NodeGroups))
				c.Report("addons.nodeGroup", hint, "%s", msg)
			}
		},
	},
	{
		ID: "ref/controller-role", Severity: diag.Error, Group: "References",
		Summary: "The controller role is named once: controllerRole for a role the bundle creates, or existingControllerRole for one it adopts.",
		Hint:    "keep controllerRole to create a role, or existingControllerRole to use one",
		check: func(c *Context) {
			if k := c.P.Karpenter; k.ControllerRole != "" && k.ExistingControllerRole != "" {
				c.Report("karpenter.existingControllerRole", "",
					"karpenter sets both controllerRole %q (a role to create) and existingControllerRole %q (a role to use)", k.ControllerRole, k.ExistingControllerRole)
			}
		},
	},
	{
		ID: "ref/interruption-queue", Severity: diag.Error, Group: "References",
		Summary: "An adopted interruption queue (existingInterruptionQueue) is the environment's only queue: interruption handling is on, and no queue to create is named.",
		check: func(c *Context) {
			k := c.P.Karpenter
			if k.ExistingInterruptionQueue == "" {
				return
			}
			if !k.InterruptionQueue {
				c.Report("karpenter.existingInterruptionQueue", "set interruptionQueue: true, or drop existingInterruptionQueue",
					"karpenter adopts interruption queue %q but interruptionQueue is false: the controller would not read it", k.ExistingInterruptionQueue)
			}
			if k.QueueName != "" {
				c.Report("karpenter.existingInterruptionQueue", "keep queueName to create a queue, or existingInterruptionQueue to use one",
					"karpenter sets both queueName %q (a queue to create) and existingInterruptionQueue %q (a queue to use)", k.QueueName, k.ExistingInterruptionQueue)
			}
		},
	},
	{
		ID: "ref/node-role", Severity: diag.Error, Group: "References",
		Summary: "A node class uses the environment's node role (the one iam:PassRole allows), or an instance profile, not both.",
		check: func(c *Context) {
			n := c.E.Names
			if k := c.P.Karpenter; k.NodeRole != "" && k.ExistingNodeRole != "" {
				c.Report("karpenter.existingNodeRole", "keep nodeRole to create a role, or existingNodeRole to use one",
					"karpenter sets both nodeRole %q (a role to create) and existingNodeRole %q (a role to use)", k.NodeRole, k.ExistingNodeRole)
			}
			for _, name := range names(c.P.NodeClasses) {
				nc := c.P.NodeClasses[name]
				base := at("nodeClasses", field(name))
				if nc.Role != "" && nc.InstanceProfile != "" {
					c.Report(at(base, "instanceProfile"), "keep one of role and instanceProfile",
						"node class %q sets both role and instanceProfile; the EC2NodeClass takes exactly one", name)
				}
				if nc.Role != "" && nc.Role != n.NodeRole {
					c.Report(at(base, "role"), fmt.Sprintf("drop the role to use %q, or set karpenter.nodeRole to %q", n.NodeRole, nc.Role),
						"node class %q uses role %q, but the controller may only pass %q (iam:PassRole): no node would launch", name, nc.Role, n.NodeRole)
				}
			}
		},
	},
	{
		ID: "ref/instance-profile-role", Severity: diag.Warning, Group: "References",
		Summary: "A node class that launches with an instance profile of its own: the role inside it is not in the profile, and the controller may pass only the environment's node role.",
		check: func(c *Context) {
			n := c.E.Names
			for _, name := range names(c.P.NodeClasses) {
				nc := c.P.NodeClasses[name]
				if nc.InstanceProfile == "" || nc.Role != "" {
					continue
				}
				c.Report(at("nodeClasses", field(name), "instanceProfile"),
					fmt.Sprintf("check that it holds %s (aws iam get-instance-profile --instance-profile-name %s), or drop instanceProfile and let Karpenter make one for the node role", n.NodeRole, nc.InstanceProfile),
					"node class %q launches with instance profile %q, whose role karpgen cannot see: the controller may pass only %q (iam:PassRole), and the bundle's access entry admits only that role's nodes; an instance profile holding another role launches no node that joins",
					name, nc.InstanceProfile, n.NodeRole)
			}
		},
	},
}

var authRules = []*Rule{
	{
		ID: "auth/irsa-issuer", Severity: diag.Error, Group: "Auth",
		Summary: "auth \"irsa\" needs cluster.oidcIssuer for the trust policy.",
		Hint:    "set cluster.oidcIssuer to the cluster's issuer URL (aws eks describe-cluster --query cluster.identity.oidc.issuer), or use auth \"podIdentity\"",
		check: func(c *Context) {
			if c.P.Karpenter.Auth == profile.AuthIRSA && c.P.Cluster.OIDCIssuer == "" {
				c.Report("karpenter.auth", "", "auth \"irsa\" needs cluster.oidcIssuer: without it the controller role has no one to trust")
			}
		},
	},
}
