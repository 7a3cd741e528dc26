package lint

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/karpgen/karpgen/generators"
	"github.com/karpgen/karpgen/internal/diag"
)

var nameRules = []*Rule{
	{
		ID: "name/cluster", Severity: diag.Error, Group: "Names",
		Summary: "cluster.name is a valid EKS cluster name (1-100 letters, digits, '-' and '_', starting with a letter or digit).",
		check: func(c *Context) {
			if n := c.P.Cluster.Name; !ValidClusterName(n) {
				c.Report("cluster.name", "use 1 to 100 letters, digits, '-' and '_', starting with a letter or digit", "cluster name %q is not a valid EKS cluster name", n)
			}
		},
	},
	{
		ID: "name/kubernetes", Severity: diag.Error, Group: "Names",
		Summary: "Namespace, service account, node pool and node class names are valid Kubernetes names (node pool and class names are also label values).",
		Hint:    "use lower-case letters, digits and '-', starting and ending with a letter or digit, at most 63 characters",
		check: func(c *Context) {
			k := c.P.Karpenter
			if CheckNamespace(k.Namespace) != "" {
				c.Report("karpenter.namespace", "", "namespace %q is not a valid Kubernetes namespace name", k.Namespace)
			}
			if !dns1123Sub.MatchString(k.ServiceAccount) || len(k.ServiceAccount) > 253 {
				c.Report("karpenter.serviceAccount", "", "service account %q is not a valid Kubernetes name", k.ServiceAccount)
			}
			for p := range c.pools() {
				if CheckObjectName("node pool", p) != "" {
					c.Report(at("nodePools", field(p)), "", "node pool name %q is not a valid NodePool name (it is also the karpenter.sh/nodepool label value)", p)
				}
			}
			for _, n := range names(c.P.NodeClasses) {
				if CheckObjectName("node class", n) != "" {
					c.Report(at("nodeClasses", field(n)), "", "node class name %q is not a valid EC2NodeClass name (it is also the karpenter.k8s.aws/ec2nodeclass label value)", n)
				}
			}
		},
	},
	{
		ID: "name/iam", Severity: diag.Error, Group: "Names",
		Summary: "IAM names are ones IAM keeps apart: no two roles whose names differ only in case (IAM takes them for one), the controller's role never a node role, instance profile names of IAM's characters, and a CloudFormation logical ID of its own for each node role.",
		check:   checkIAMNames,
	},
	{
		ID: "name/environment", Severity: diag.Error, Group: "Names",
		Summary: "Environment names are DNS-1123 labels of at most 53 characters: safe as a folder of out/, and karpenter-<env> fits 63.",
		Hint:    "rename the environment, e.g. \"prod-eu\"",
		check: func(c *Context) {
			if msg := CheckEnvName(c.E.Name); msg != "" {
				c.Report("", "", "%s", msg)
			}
		},
	},
}

// ValidClusterName reports whether n is a valid EKS cluster name.
func ValidClusterName(n string) bool {
	return len(n) > 0 && len(n) <= 100 && clusterNameRE.MatchString(n)
}

// instanceProfileRE is IAM's pattern of an instance profile name.
var instanceProfileRE = regexp.MustCompile(`^[A-Za-z0-9+=,.@_-]{1,128}$`)

// iamRole is a role the environment names, where the profile names it.
type iamRole struct {
	name, path, what string
	node             bool
}

// iamRoles are the environment's roles: its node role, the controller's
// role, then karpenter.nodeRoles by name.
func iamRoles(c *Context) []iamRole {
	n, k := c.E.Names, c.P.Karpenter
	nodePath := "cluster.name" // the default is derived from the cluster's name
	switch {
	case k.ExistingNodeRole != "":
		nodePath = "karpenter.existingNodeRole"
	case k.NodeRole != "":
		nodePath = "karpenter.nodeRole"
	}
	ctlPath := "cluster.name"
	switch {
	case k.ExistingControllerRole != "":
		ctlPath = "karpenter.existingControllerRole"
	case k.ControllerRole != "":
		ctlPath = "karpenter.controllerRole"
	}
	out := []iamRole{
		{n.NodeRole, nodePath, "the environment's node role", true},
		{n.ControllerRole, ctlPath, "the controller's role", false},
	}
	for _, r := range n.ExtraNodeRoles {
		out = append(out, iamRole{r.Name, at("karpenter", "nodeRoles", field(r.Name)), "node role", true})
	}
	return out
}

func checkIAMNames(c *Context) {
	roles := iamRoles(c)
	for i, r := range roles {
		for _, o := range roles[:i] {
			switch {
			case !strings.EqualFold(r.name, o.name):
			case r.node != o.node:
				// The controller's own role as a node role: Karpenter
				// would pass the controller's permissions to every node
				// it launches (iam:PassRole allows it).
				c.Report(r.path, "give the nodes a role of their own: the controller's role must never be a node role",
					"%s %s and %s %s are one role: the controller could pass its own permissions to every node it launches", o.what, quotedName(o.name), r.what, quotedName(r.name))
			case r.name != o.name:
				c.Report(r.path, "spell both alike, or name two different roles",
					"%s %s and %s %s differ only in case: IAM role names are case-insensitive, so the account holds one role for both and the template cannot create the second",
					r.what, quotedName(r.name), o.what, quotedName(o.name))
			}
		}
	}
	// Each node role is a resource of the template, by a logical ID made
	// of its name; two IDs alike would make one role vanish from the
	// template while its node class and iam:PassRole still name it.
	n := c.E.Names
	ids := map[string]string{}
	for _, r := range n.NodeRoles() {
		id := generators.NodeRoleLogicalID(n, r.Name)
		if other, taken := ids[id]; taken && other != r.Name {
			c.Report(at("karpenter", "nodeRoles", field(r.Name)), "rename one of the two roles",
				"node roles %s and %s take the same CloudFormation logical ID %s: the template would hold one of them", quotedName(other), quotedName(r.Name), id)
		}
		ids[id] = r.Name
	}
	for _, name := range names(c.P.NodeClasses) {
		if ip := c.P.NodeClasses[name].InstanceProfile; ip != "" && !instanceProfileRE.MatchString(ip) {
			c.Report(at("nodeClasses", field(name), "instanceProfile"), "use the instance profile's name as IAM shows it: 1 to 128 letters, digits and +=,.@_-",
				"%s", fmt.Sprintf("instance profile name %s is not one IAM takes", quotedName(ip)))
		}
	}
}
