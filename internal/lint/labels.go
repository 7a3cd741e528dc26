package lint

import (
	"fmt"
	"slices"
	"strings"

	"github.com/karpgen/karpgen/internal/facts"
)

// wellKnown are the requirement keys Karpenter schedules on besides its
// own karpenter.k8s.aws keys.
var wellKnown = []string{
	"topology.kubernetes.io/zone", "topology.kubernetes.io/region", "topology.k8s.aws/zone-id",
	"node.kubernetes.io/instance-type", "node.kubernetes.io/windows-build",
	"kubernetes.io/os", "kubernetes.io/arch", "karpenter.sh/capacity-type",
	"beta.kubernetes.io/instance-type", "beta.kubernetes.io/os", "beta.kubernetes.io/arch",
	"failure-domain.beta.kubernetes.io/region", "failure-domain.beta.kubernetes.io/zone",
}

// oldKubernetesAllowed are the kubernetes.io keys the CRD allowed up to v1.8.
var oldKubernetesAllowed = []string{
	"beta.kubernetes.io/instance-type", "failure-domain.beta.kubernetes.io/region", "beta.kubernetes.io/os",
	"beta.kubernetes.io/arch", "failure-domain.beta.kubernetes.io/zone", "topology.kubernetes.io/zone",
	"topology.kubernetes.io/region", "kubernetes.io/arch", "kubernetes.io/os", "node.kubernetes.io/windows-build",
}

var taintEffects = []string{"NoSchedule", "PreferNoSchedule", "NoExecute"}

func (c *Context) restricted(key string, requirement bool) string {
	return RestrictedLabel(c.Minor, key, requirement)
}

// RestrictedLabel says why the NodePool CRD of minor m refuses a template
// label (requirement false) or requirement key, or "" when it accepts it.
func RestrictedLabel(m *facts.Minor, key string, requirement bool) string {
	d := domain(key)
	switch {
	case key == "karpenter.sh/nodepool":
		return "Karpenter sets karpenter.sh/nodepool itself"
	case key == "kubernetes.io/hostname":
		return "kubernetes.io/hostname is unique to each node"
	case strings.HasSuffix(d, "karpenter.sh") && key != "karpenter.sh/capacity-type":
		return `the label domain "karpenter.sh" is restricted`
	case strings.HasSuffix(d, "karpenter.k8s.aws") && !slices.Contains(m.Labels.AWSKeys, key):
		return fmt.Sprintf("the label domain \"karpenter.k8s.aws\" is restricted to Karpenter's well-known keys in %s", m.Minor)
	}
	if !m.Labels.RestrictKubernetesDomains {
		return ""
	}
	switch {
	case strings.HasSuffix(d, "kubernetes.io"):
		if slices.Contains(oldKubernetesAllowed, key) || (requirement && key == "node.kubernetes.io/instance-type") ||
			strings.HasSuffix(d, "node.kubernetes.io") || strings.HasSuffix(d, "node-restriction.kubernetes.io") {
			return ""
		}
		return fmt.Sprintf("the label domain \"kubernetes.io\" is restricted in Karpenter %s", m.Minor)
	case strings.HasSuffix(d, "k8s.io") && !strings.HasSuffix(d, "kops.k8s.io"):
		return fmt.Sprintf("the label domain \"k8s.io\" is restricted in Karpenter %s", m.Minor)
	}
	return ""
}

// suggestKey finds a well-known key with the same name part, or a close one.
func suggestKey(key string, known []string) string {
	_, name, _ := strings.Cut(key, "/")
	for _, k := range known {
		if _, kn, _ := strings.Cut(k, "/"); kn == name && k != key {
			return k
		}
	}
	return closest(key, known)
}
