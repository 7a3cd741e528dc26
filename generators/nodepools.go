package generators

import (
	"maps"
	"slices"
	"strconv"

	"github.com/karpgen/karpgen/internal/profile"
)

// Well-known requirement keys a profile's shorthand fields map to.
const (
	keyArch          = "kubernetes.io/arch"
	keyOS            = "kubernetes.io/os"
	keyCapacityType  = "karpenter.sh/capacity-type"
	keyZone          = "topology.kubernetes.io/zone"
	keyCategory      = "karpenter.k8s.aws/instance-category"
	keyFamily        = "karpenter.k8s.aws/instance-family"
	keyGeneration    = "karpenter.k8s.aws/instance-generation"
	keyCPU           = "karpenter.k8s.aws/instance-cpu"
	keySize          = "karpenter.k8s.aws/instance-size"
	keyInstanceType  = "node.kubernetes.io/instance-type"
	keyNodePool      = "karpenter.sh/nodepool"
	nodeClassGroup   = "karpenter.k8s.aws"
	nodeClassKind    = "EC2NodeClass"
	nodePoolVersion  = "karpenter.sh/v1"
	nodeClassVersion = "karpenter.k8s.aws/v1"
)

// NodePools returns the NodePool objects, sorted by name.
func NodePools(p *profile.Profile) []any {
	out := make([]any, 0, len(p.NodePools))
	for _, name := range sortedKeys(p.NodePools) {
		out = append(out, nodePool(name, p.NodePools[name]))
	}
	return out
}

func nodePool(name string, np profile.NodePool) obj {
	templateSpec := obj{
		"nodeClassRef": obj{"group": nodeClassGroup, "kind": nodeClassKind, "name": np.NodeClass},
		"requirements": Requirements(np),
		"expireAfter":  np.ExpireAfter,
	}
	if len(np.Taints) > 0 {
		templateSpec["taints"] = taints(np.Taints)
	}
	if len(np.StartupTaints) > 0 {
		templateSpec["startupTaints"] = taints(np.StartupTaints)
	}
	if np.TerminationGracePeriod != "" {
		templateSpec["terminationGracePeriod"] = np.TerminationGracePeriod
	}
	template := obj{"spec": templateSpec}
	meta := obj{}
	if len(np.Labels) > 0 {
		meta["labels"] = np.Labels
	}
	if len(np.Annotations) > 0 {
		meta["annotations"] = np.Annotations
	}
	if len(meta) > 0 {
		template["metadata"] = meta
	}
	spec := obj{"template": template, "disruption": disruption(np.Disruption)}
	if len(np.Limits) > 0 {
		spec["limits"] = np.Limits
	}
	if np.Replicas != nil {
		spec["replicas"] = *np.Replicas
	}
	if np.Weight != nil {
		spec["weight"] = *np.Weight
	}
	return obj{
		"apiVersion": nodePoolVersion,
		"kind":       "NodePool",
		"metadata":   obj{"name": name},
		"spec":       spec,
	}
}

func disruption(d profile.Disruption) obj {
	budgets := make([]any, len(d.Budgets))
	for i, b := range d.Budgets {
		o := obj{"nodes": b.Nodes}
		if b.Schedule != "" {
			o["schedule"] = b.Schedule
		}
		if b.Duration != "" {
			o["duration"] = b.Duration
		}
		if len(b.Reasons) > 0 {
			o["reasons"] = strs(b.Reasons...)
		}
		budgets[i] = o
	}
	return obj{"consolidationPolicy": d.ConsolidationPolicy, "consolidateAfter": d.ConsolidateAfter, "budgets": budgets}
}

// Requirements are a pool's scheduling requirements: the shorthand fields
// in a fixed order, then the profile's own requirements in its order.
func Requirements(np profile.NodePool) []any {
	var out []any
	in := func(key string, values []string) {
		if len(values) > 0 {
			out = append(out, obj{"key": key, "operator": "In", "values": strs(values...)})
		}
	}
	in(keyArch, np.Arch)
	in(keyOS, np.OS)
	in(keyCapacityType, np.CapacityTypes)
	in(keyZone, np.Zones)
	in(keyCategory, np.InstanceCategories)
	in(keyFamily, np.InstanceFamilies)
	in(keyGeneration, itoa(np.InstanceGenerations))
	if np.InstanceGenerationAbove != nil {
		out = append(out, obj{"key": keyGeneration, "operator": "Gt", "values": strs(strconv.Itoa(*np.InstanceGenerationAbove))})
	}
	in(keyCPU, itoa(np.InstanceCPU))
	in(keySize, np.InstanceSizes)
	in(keyInstanceType, np.InstanceTypes)
	for _, r := range np.Requirements {
		o := requirement(r)
		if r.MinValues != nil {
			o["minValues"] = *r.MinValues
		}
		out = append(out, o)
	}
	return out
}

// requirement is a node selector requirement; NodePools add minValues.
func requirement(r profile.Requirement) obj {
	o := obj{"key": r.Key, "operator": r.Operator}
	if len(r.Values) > 0 {
		o["values"] = strs(r.Values...)
	}
	return o
}

func taints(ts []profile.Taint) []any {
	out := make([]any, len(ts))
	for i, t := range ts {
		o := obj{"key": t.Key, "effect": t.Effect}
		if t.Value != "" {
			o["value"] = t.Value
		}
		out[i] = o
	}
	return out
}

func itoa(xs []int) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = strconv.Itoa(x)
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }
