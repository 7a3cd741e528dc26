package lint

import (
	"github.com/karpgen/karpgen/internal/diag"
	"github.com/karpgen/karpgen/internal/util/escape"
)

// namesRules are the rules of the group Names.
var namesRules = []*Rule{
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
			if !dns1123Sub().MatchString(k.ServiceAccount) || len(k.ServiceAccount) > 253 {
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
	{
		ID: "name/text", Severity: diag.Error, Group: "Names",
		Summary: "Every name, key and value of the profile (node groups, pools and classes, labels, taints, tags, instance families, selectors, limits, ...) is one line of printable text: no control character, line break or bidirectional override. They reach shell commands, terminals, SUMMARY.md and its diagram.",
		Hint:    "remove the character; only userData may span lines",
		check: func(c *Context) {
			badText(c.P, func(path, s string, key bool) {
				what := "value"
				if key {
					what = "key"
				}
				c.Report(path, "", "%s %s holds a control character, line break or bidirectional override", what, escape.Terminal(s))
			})
		},
	},
	{
		ID: "name/node-group", Severity: diag.Error, Group: "Names",
		Summary: "Node group names are valid EKS managed node group names (1-63 letters, digits, '-' and '_', starting with a letter or digit).",
		Hint:    "use the node group's name as EKS shows it",
		check: func(c *Context) {
			for _, g := range names(c.P.NodeGroups) {
				if CheckNodeGroupName(g) != "" {
					c.Report(at("nodeGroups", field(g)), "", "node group name %s is not a valid EKS node group name", escape.Terminal(g))
				}
			}
		},
	},
}
