package lint

import (
	"fmt"

	"github.com/karpgen/karpgen/internal/util/escape"
)

// The name rules below are the ones vet applies to a profile, exported
// so that a name given any other way (a flag of rotate or migrate) is
// held to the same rule before it reaches a runbook. Each returns what
// is wrong, or "".

// CheckObjectName reports a NodePool or EC2NodeClass name that is not a
// DNS-1123 label of at most 63 characters: the name is also the value of
// the karpenter.sh/nodepool or karpenter.k8s.aws/ec2nodeclass label.
func CheckObjectName(kind, name string) string {
	if dns1123Label.MatchString(name) && len(name) <= 63 {
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
	if len(name) <= 63 && clusterNameRE.MatchString(name) {
		return ""
	}
	return fmt.Sprintf("node group name %s is not a valid EKS node group name: 1 to 63 letters, digits, '-' and '_', starting with a letter or digit", quotedName(name))
}

// CheckNamespace reports a Kubernetes namespace name the API server
// refuses.
func CheckNamespace(name string) string {
	if dns1123Label.MatchString(name) && len(name) <= 63 {
		return ""
	}
	return fmt.Sprintf("namespace %s is not a valid Kubernetes namespace name: a DNS-1123 label of at most 63 characters", quotedName(name))
}

// CheckResourceName reports the name of a namespaced object (a
// Deployment) the API server refuses: a DNS-1123 subdomain of at most 253
// characters.
func CheckResourceName(kind, name string) string {
	if dns1123Sub.MatchString(name) && len(name) <= 253 {
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
