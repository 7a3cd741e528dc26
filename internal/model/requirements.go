package model

import (
	"strconv"

	"github.com/karpgen/karpgen/internal/profile"
)

// Well-known requirement keys a profile's shorthand fields map to.
const (
	KeyArch         = "kubernetes.io/arch"
	KeyOS           = "kubernetes.io/os"
	KeyCapacityType = "karpenter.sh/capacity-type"
	KeyZone         = "topology.kubernetes.io/zone"
	KeyCategory     = "karpenter.k8s.aws/instance-category"
	KeyFamily       = "karpenter.k8s.aws/instance-family"
	KeyGeneration   = "karpenter.k8s.aws/instance-generation"
	KeyCPU          = "karpenter.k8s.aws/instance-cpu"
	KeySize         = "karpenter.k8s.aws/instance-size"
	KeyInstanceType = "node.kubernetes.io/instance-type"
	// KeyHostname is the node's own name: a topology of one node.
	KeyHostname = "kubernetes.io/hostname"
)

// PoolRequirements are a pool's scheduling requirements: the shorthand
// fields in a fixed order, then the profile's own requirements in its
// order. The NodePool carries them as they are; the instance-type table
// answers which types they allow.
func PoolRequirements(np profile.NodePool) []profile.Requirement {
	var out []profile.Requirement
	in := func(key string, values []string) {
		if len(values) > 0 {
			out = append(out, profile.Requirement{Key: key, Operator: "In", Values: values})
		}
	}
	in(KeyArch, np.Arch)
	in(KeyOS, np.OS)
	in(KeyCapacityType, np.CapacityTypes)
	in(KeyZone, np.Zones)
	in(KeyCategory, np.InstanceCategories)
	in(KeyFamily, np.InstanceFamilies)
	in(KeyGeneration, itoa(np.InstanceGenerations))
	if np.InstanceGenerationAbove != nil {
		out = append(out, profile.Requirement{Key: KeyGeneration, Operator: "Gt", Values: []string{strconv.Itoa(*np.InstanceGenerationAbove)}})
	}
	in(KeyCPU, itoa(np.InstanceCPU))
	in(KeySize, np.InstanceSizes)
	in(KeyInstanceType, np.InstanceTypes)
	return append(out, np.Requirements...)
}

func itoa(xs []int) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = strconv.Itoa(x)
	}
	return out
}
