package instancetypes

import (
	"strconv"

	"github.com/karpgen/karpgen/internal/facts"
	"github.com/karpgen/karpgen/internal/profile"
)

// Requirements are a pool's scheduling requirements: the shorthand
// fields in a fixed order, then the profile's own requirements in its
// order. The NodePool carries them as they are; Select answers
// which types of the table they allow.
func Requirements(np profile.NodePool) []profile.Requirement {
	var out []profile.Requirement
	in := func(key string, values []string) {
		if len(values) > 0 {
			out = append(out, profile.Requirement{Key: key, Operator: "In", Values: values})
		}
	}
	in(facts.KeyArch, np.Arch)
	in(facts.KeyOS, np.OS)
	in(facts.KeyCapacityType, np.CapacityTypes)
	in(facts.KeyZone, np.Zones)
	in(facts.KeyCategory, np.InstanceCategories)
	in(facts.KeyFamily, np.InstanceFamilies)
	in(facts.KeyGeneration, itoa(np.InstanceGenerations))
	if np.InstanceGenerationAbove != nil {
		out = append(out, profile.Requirement{Key: facts.KeyGeneration, Operator: "Gt", Values: []string{strconv.Itoa(*np.InstanceGenerationAbove)}})
	}
	in(facts.KeyCPU, itoa(np.InstanceCPU))
	in(facts.KeySize, np.InstanceSizes)
	in(facts.KeyInstanceType, np.InstanceTypes)
	return append(out, np.Requirements...)
}

func itoa(xs []int) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = strconv.Itoa(x)
	}
	return out
}
