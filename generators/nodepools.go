package generators

import (
	"maps"
	"slices"
	"strconv"

	"github.com/karpgen/karpgen/internal/model"
	"github.com/karpgen/karpgen/internal/profile"
)

// Names of the objects karpgen writes (the requirement keys are the
// model's).
const (
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

// Requirements are a pool's scheduling requirements as the NodePool
// writes them (model.PoolRequirements), with minValues.
func Requirements(np profile.NodePool) []any {
	var out []any
	for _, r := range model.PoolRequirements(np) {
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
