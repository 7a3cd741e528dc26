package lint

import (
	"fmt"
	"strings"

	"github.com/karpgen/karpgen/generators"
	"github.com/karpgen/karpgen/internal/util/escape"
	"github.com/karpgen/karpgen/internal/util/lazyre"
)

// The name rules below are the ones vet applies to a profile, exported
// so that a name given any other way (a flag of rotate or migrate) is
// held to the same rule before it reaches a runbook. Each returns what
// is wrong, or "".

// CheckObjectName reports a NodePool or EC2NodeClass name that is not a
// DNS-1123 label of at most 63 characters: the name is also the value of
// the karpenter.sh/nodepool or karpenter.k8s.aws/ec2nodeclass label.
func CheckObjectName(kind, name string) string {
	if dns1123Label().MatchString(name) && len(name) <= 63 {
		return ""
	}
	if len(name) > 63 {
		return fmt.Sprintf("%s name %s is %d characters; at most 63 (it is also a label value)", kind, escape.Terminal(name), len(name))
	}
	return fmt.Sprintf("%s name %s is not a DNS-1123 label: lower-case letters, digits and '-', starting and ending with a letter or digit", kind, quotedName(name))
}

// CheckNodeGroupName reports a name EKS refuses for a managed node
// group: 1 to 63 letters, digits, '-' and '_', starting with a letter or
// digit.
func CheckNodeGroupName(name string) string {
	if len(name) <= 63 && clusterNameRE().MatchString(name) {
		return ""
	}
	return fmt.Sprintf("node group name %s is not a valid EKS node group name: 1 to 63 letters, digits, '-' and '_', starting with a letter or digit", quotedName(name))
}

// CheckNamespace reports a Kubernetes namespace name the API server
// refuses.
func CheckNamespace(name string) string {
	if dns1123Label().MatchString(name) && len(name) <= 63 {
		return ""
	}
	return fmt.Sprintf("namespace %s is not a valid Kubernetes namespace name: a DNS-1123 label of at most 63 characters", quotedName(name))
}

// CheckResourceName reports the name of a namespaced object (a
// Deployment) the API server refuses: a DNS-1123 subdomain of at most 253
// characters.
func CheckResourceName(kind, name string) string {
	if dns1123Sub().MatchString(name) && len(name) <= 253 {
		return ""
	}
	return fmt.Sprintf("%s name %s is not a valid Kubernetes name: lower-case letters, digits, '-' and '.', starting and ending with a letter or digit", kind, quotedName(name))
}

// quotedName is a name as a message shows it: in quotes, its control
// characters escaped.
func quotedName(s string) string {
	if t := escape.Terminal(s); t != s {
		return t
	}
	return `"` + s + `"`
}

// ValidClusterName reports whether n is a valid EKS cluster name.
func ValidClusterName(n string) bool {
	return len(n) > 0 && len(n) <= 100 && clusterNameRE().MatchString(n)
}

// instanceProfileRE is IAM's pattern of an instance profile name.
var instanceProfileRE = lazyre.New(`^[A-Za-z0-9+=,.@_-]{1,128}$`)

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
		if ip := c.P.NodeClasses[name].InstanceProfile; ip != "" && !instanceProfileRE().MatchString(ip) {
			c.Report(at("nodeClasses", field(name), "instanceProfile"), "use the instance profile's name as IAM shows it: 1 to 128 letters, digits and +=,.@_-",
				"%s", fmt.Sprintf("instance profile name %s is not one IAM takes", quotedName(ip)))
		}
	}
}
