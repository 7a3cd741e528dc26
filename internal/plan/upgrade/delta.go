package upgrade

import (
	"fmt"

	"github.com/karpgen/karpgen/internal/facts"
	"github.com/karpgen/karpgen/internal/fleetdiff"
	"github.com/karpgen/karpgen/internal/iam/iampolicy"
)

// crdChanges names what the CRDs accept now that they did not: the enums
// and label keys of the facts table.
func crdChanges(a, b *facts.Minor) []string {
	var out []string
	add := func(what string, before, after []string) {
		added, removed := iampolicy.Diff(before, after)
		for _, x := range added {
			out = append(out, fmt.Sprintf("%s %s is new", what, x))
		}
		for _, x := range removed {
			out = append(out, fmt.Sprintf("%s %s is gone", what, x))
		}
	}
	add("NodePool consolidationPolicy", a.ConsolidationPolicies, b.ConsolidationPolicies)
	add("NodePool requirement operator", a.RequirementOperators, b.RequirementOperators)
	add("capacity type", a.CapacityTypes, b.CapacityTypes)
	add("EC2NodeClass AMI alias family", a.AMIFamilies, b.AMIFamilies)
	add("NodePool label key", a.Labels.AWSKeys, b.Labels.AWSKeys)
	if a.Labels.RestrictKubernetesDomains && !b.Labels.RestrictKubernetesDomains {
		out = append(out, "NodePool labels and requirements may use the kubernetes.io and k8s.io domains")
	}
	return out
}

// driftLines say, for each object of a comparison, the pools whose
// nodes its change replaces and what paces them.
func driftLines(objects []fleetdiff.Object) []string {
	var out []string
	for _, o := range objects {
		for _, p := range o.Pools {
			out = append(out, fmt.Sprintf("%s %s (%s): nodes of pool %s: %s", o.Kind, o.Name, o.Effect, p.Pool, p.Summary))
		}
	}
	return out
}
