package lint

import (
	"fmt"

	"github.com/karpgen/karpgen/internal/diag"
	"github.com/karpgen/karpgen/internal/profile"
)

// refsRules are the rules of the group References.
var refsRules = []*Rule{
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
		ID: "ref/pod-identity-association", Severity: diag.Error, Group: "References",
		Summary: "An adopted Pod Identity association (existingPodIdentityAssociation) is the controller's credentials: auth is podIdentity, and the role it binds is adopted too (existingControllerRole).",
		check: func(c *Context) {
			k := c.P.Karpenter
			id := k.ExistingPodIdentityAssociation
			switch {
			case id == "":
			case k.Auth != profile.AuthPodIdentity:
				c.Report("karpenter.existingPodIdentityAssociation", "set auth: \"podIdentity\", or drop existingPodIdentityAssociation",
					"karpenter adopts Pod Identity association %s but auth is %q: the controller would not take its credentials through it", id, k.Auth)
			case k.ExistingControllerRole == "":
				c.Report("karpenter.existingPodIdentityAssociation", "set existingControllerRole to the role the association binds (aws eks describe-pod-identity-association --query association.roleArn)",
					"karpenter adopts Pod Identity association %s but not the role it binds: the controller policies would go to role %s, which the association does not give the controller", id, c.E.Names.ControllerRole)
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
		Summary: "A node class uses one of the environment's node roles (those iam:PassRole allows: karpenter's node role and karpenter.nodeRoles), or an instance profile, not both; every role of karpenter.nodeRoles is used.",
		check: func(c *Context) {
			n := c.E.Names
			k := c.P.Karpenter
			if k.NodeRole != "" && k.ExistingNodeRole != "" {
				c.Report("karpenter.existingNodeRole", "keep nodeRole to create a role, or existingNodeRole to use one",
					"karpenter sets both nodeRole %q (a role to create) and existingNodeRole %q (a role to use)", k.NodeRole, k.ExistingNodeRole)
			}
			roles := roleNames(n)
			used := map[string]bool{}
			for _, name := range names(c.P.NodeClasses) {
				nc := c.P.NodeClasses[name]
				base := at("nodeClasses", field(name))
				if nc.Role != "" && nc.InstanceProfile != "" {
					c.Report(at(base, "instanceProfile"), "keep one of role and instanceProfile",
						"node class %q sets both role and instanceProfile; the EC2NodeClass takes exactly one", name)
				}
				if nc.InstanceProfileRole != "" && nc.InstanceProfile == "" {
					c.Report(at(base, "instanceProfileRole"), "drop instanceProfileRole, or set instanceProfile to the instance profile that holds it",
						"node class %q names instanceProfileRole %q without an instanceProfile", name, nc.InstanceProfileRole)
				}
				for _, f := range []struct{ key, role string }{{"role", nc.Role}, {"instanceProfileRole", nc.InstanceProfileRole}} {
					if f.role == "" {
						continue
					}
					used[f.role] = true
					if !n.HasNodeRole(f.role) {
						c.Report(at(base, f.key), fmt.Sprintf("name one of %s, or add %q to karpenter.nodeRoles", quoteList(roles), f.role),
							"node class %q uses role %q, but the controller may only pass %s (iam:PassRole): no node would launch", name, f.role, quoteList(roles))
					}
				}
			}
			for _, r := range n.ExtraNodeRoles {
				base := at("karpenter", "nodeRoles", field(r.Name))
				switch {
				case r.Name == n.NodeRole:
					c.Report(base, "drop it: every node class may use the node role",
						"karpenter.nodeRoles names %q, which is the environment's node role already", r.Name)
				case !used[r.Name]:
					c.Report(base, "name it as a node class's role, or drop it",
						"node role %q of karpenter.nodeRoles is no node class's role: the controller would be allowed to pass a role no node uses", r.Name)
				}
				if r.Exists && len(r.Policies) > 0 {
					c.Report(at(base, "policies"), "attach the policies to the role yourself and drop them here, or set existing: false to let the bundle create the role",
						"node role %q exists (existing: true), but the bundle attaches policies only to the roles it creates", r.Name)
				}
			}
		},
	},
	{
		ID: "ref/instance-profile-role", Severity: diag.Warning, Group: "References",
		Summary: "A node class that launches with an instance profile of its own names the role inside it (instanceProfileRole): otherwise karpgen assumes it is the node role the controller may pass.",
		check: func(c *Context) {
			n := c.E.Names
			for _, name := range names(c.P.NodeClasses) {
				nc := c.P.NodeClasses[name]
				if nc.InstanceProfile == "" || nc.Role != "" || nc.InstanceProfileRole != "" {
					continue
				}
				c.Report(at("nodeClasses", field(name), "instanceProfile"),
					fmt.Sprintf("name the role it holds in instanceProfileRole (aws iam get-instance-profile --instance-profile-name %s), or drop instanceProfile and let Karpenter make one for the node role", nc.InstanceProfile),
					"node class %q launches with instance profile %q, whose role karpgen cannot see: the controller may pass only %s (iam:PassRole), and the bundle's access entries admit only those roles' nodes; an instance profile holding another role launches no node that joins",
					name, nc.InstanceProfile, quoteList(roleNames(n)))
			}
		},
	},
}
