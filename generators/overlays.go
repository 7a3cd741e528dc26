package generators

import (
	"maps"
	"slices"

	"github.com/karpgen/karpgen/internal/model"
	"github.com/karpgen/karpgen/internal/profile"
)

// nodeOverlaySpec is a NodeOverlay's spec: the CRD's names, an empty
// field left out.
type nodeOverlaySpec struct {
	Capacity        map[string]any        `json:"capacity,omitempty"`
	Price           string                `json:"price,omitempty"`
	PriceAdjustment string                `json:"priceAdjustment,omitempty"`
	Requirements    []selectorRequirement `json:"requirements"`
	Weight          *int                  `json:"weight,omitempty"`
}

// selectorRequirement is a node selector requirement, without the
// minValues only NodePools take.
type selectorRequirement struct {
	Key      string   `json:"key"`
	Operator string   `json:"operator"`
	Values   []string `json:"values,omitempty"`
}

// NodeOverlays returns the NodeOverlay objects (Karpenter 1.7+), sorted by
// name: price or capacity overrides for the instance types their
// requirements select.
func NodeOverlays(p *profile.Profile) []any {
	var out []any
	for _, name := range slices.Sorted(maps.Keys(p.NodeOverlays)) {
		o := p.NodeOverlays[name]
		spec := nodeOverlaySpec{Capacity: o.Capacity, Price: o.Price, PriceAdjustment: o.PriceAdjustment, Weight: o.Weight}
		for _, r := range o.Requirements {
			spec.Requirements = append(spec.Requirements, selectorRequirement{r.Key, r.Operator, r.Values})
		}
		out = append(out, obj{"apiVersion": "karpenter.sh/v1alpha1", "kind": "NodeOverlay", "metadata": obj{"name": name}, "spec": plain(spec)})
	}
	return out
}

// capacityBufferSpec is a CapacityBuffer's spec.
type capacityBufferSpec struct {
	Limits         map[string]any `json:"limits,omitempty"`
	Percentage     *int           `json:"percentage,omitempty"`
	PodTemplateRef *objectName    `json:"podTemplateRef,omitempty"`
	Replicas       *int           `json:"replicas,omitempty"`
	ScalableRef    any            `json:"scalableRef,omitempty"`
}

type objectName struct {
	Name string `json:"name"`
}

// CapacityBuffers returns the CapacityBuffer objects (Karpenter 1.14+),
// sorted by name: capacity kept ready for a PodTemplate's pods or a
// workload's.
func CapacityBuffers(e *model.Env) []any {
	var out []any
	for _, name := range slices.Sorted(maps.Keys(e.Profile.CapacityBuffers)) {
		b := e.Profile.CapacityBuffers[name]
		spec := capacityBufferSpec{Limits: b.Limits, Percentage: b.Percentage, Replicas: b.Replicas}
		if b.PodTemplate != "" {
			spec.PodTemplateRef = &objectName{b.PodTemplate}
		}
		if b.Scalable != nil {
			spec.ScalableRef = b.Scalable
		}
		out = append(out, obj{"apiVersion": "autoscaling.x-k8s.io/v1beta1", "kind": "CapacityBuffer",
			"metadata": obj{"name": name, "namespace": b.Namespace}, "spec": plain(spec)})
	}
	return out
}
