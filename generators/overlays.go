package generators

import (
	"github.com/karpgen/karpgen/internal/model"
	"github.com/karpgen/karpgen/internal/profile"
)

// NodeOverlays returns the NodeOverlay objects (Karpenter 1.7+), sorted by
// name: price or capacity overrides for the instance types their
// requirements select.
func NodeOverlays(p *profile.Profile) []any {
	var out []any
	for _, name := range sortedKeys(p.NodeOverlays) {
		o := p.NodeOverlays[name]
		var reqs []any
		for _, r := range o.Requirements {
			reqs = append(reqs, requirement(r))
		}
		spec := obj{"requirements": reqs}
		if o.Price != "" {
			spec["price"] = o.Price
		}
		if o.PriceAdjustment != "" {
			spec["priceAdjustment"] = o.PriceAdjustment
		}
		if len(o.Capacity) > 0 {
			spec["capacity"] = o.Capacity
		}
		if o.Weight != nil {
			spec["weight"] = *o.Weight
		}
		out = append(out, obj{"apiVersion": "karpenter.sh/v1alpha1", "kind": "NodeOverlay", "metadata": obj{"name": name}, "spec": spec})
	}
	return out
}

// CapacityBuffers returns the CapacityBuffer objects (Karpenter 1.14+),
// sorted by name: capacity kept ready for a PodTemplate's pods or a
// workload's.
func CapacityBuffers(e *model.Env) []any {
	var out []any
	for _, name := range sortedKeys(e.Profile.CapacityBuffers) {
		b := e.Profile.CapacityBuffers[name]
		spec := obj{}
		if b.PodTemplate != "" {
			spec["podTemplateRef"] = obj{"name": b.PodTemplate}
		}
		if b.Scalable != nil {
			spec["scalableRef"] = obj{"apiGroup": b.Scalable.APIGroup, "kind": b.Scalable.Kind, "name": b.Scalable.Name}
		}
		if b.Replicas != nil {
			spec["replicas"] = *b.Replicas
		}
		if b.Percentage != nil {
			spec["percentage"] = *b.Percentage
		}
		if len(b.Limits) > 0 {
			spec["limits"] = b.Limits
		}
		out = append(out, obj{"apiVersion": "autoscaling.x-k8s.io/v1beta1", "kind": "CapacityBuffer",
			"metadata": obj{"name": name, "namespace": b.Namespace}, "spec": spec})
	}
	return out
}
