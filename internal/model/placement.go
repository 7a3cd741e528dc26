package model

import (
	"maps"
	"slices"

	"github.com/karpgen/karpgen/internal/profile"
)

// Placement is where workloads land: which node groups and pools repel
// pods without tolerations, the group critical add-ons are pinned to, and
// how the controller is scheduled.
type Placement struct {
	// OpenGroups and OpenPools are the node groups and pools without a
	// NoSchedule or NoExecute taint, sorted: pods without tolerations
	// (system pods) run there.
	OpenGroups, OpenPools []string
	// AddonGroup is the node group critical add-ons are pinned to: the
	// profile's choice, else "system" when it is open, else the first open
	// group; "" when there is none.
	AddonGroup string
	// ControllerGroup is the node group the controller runs on, with the
	// labels it is selected by and the tolerations of its taints
	// (CriticalAddonsOnly first, as the chart has it).
	ControllerGroup       string
	ControllerSelector    map[string]string
	ControllerTolerations []Toleration
}

// Toleration is a pod toleration.
type Toleration struct {
	Key      string `json:"key"`
	Operator string `json:"operator"`
	Value    string `json:"value,omitempty"`
	Effect   string `json:"effect,omitempty"`
}

// Tolerate is the toleration of a taint: Equal to its value, or Exists.
func Tolerate(t profile.Taint) Toleration {
	if t.Value != "" {
		return Toleration{Key: t.Key, Operator: "Equal", Value: t.Value, Effect: t.Effect}
	}
	return Toleration{Key: t.Key, Operator: "Exists", Effect: t.Effect}
}

// Tolerations are the tolerations of every taint.
func Tolerations(ts []profile.Taint) []Toleration {
	var out []Toleration
	for _, t := range ts {
		out = append(out, Tolerate(t))
	}
	return out
}

// Repels reports whether taints keep pods without tolerations away.
func Repels(ts []profile.Taint) bool {
	for _, t := range ts {
		if t.Effect == "NoSchedule" || t.Effect == "NoExecute" {
			return true
		}
	}
	return false
}

// GroupRepels and PoolRepels report a tainted node group or pool.
func (pl Placement) GroupRepels(name string) bool { return !slices.Contains(pl.OpenGroups, name) }
func (pl Placement) PoolRepels(name string) bool  { return !slices.Contains(pl.OpenPools, name) }

func placementOf(p *profile.Profile) Placement {
	var pl Placement
	for _, g := range slices.Sorted(maps.Keys(p.NodeGroups)) {
		if !Repels(p.NodeGroups[g].Taints) {
			pl.OpenGroups = append(pl.OpenGroups, g)
		}
	}
	for _, np := range slices.Sorted(maps.Keys(p.NodePools)) {
		if !Repels(p.NodePools[np].Taints) {
			pl.OpenPools = append(pl.OpenPools, np)
		}
	}
	switch {
	case p.Addons.NodeGroup != "":
		pl.AddonGroup = p.Addons.NodeGroup
	case slices.Contains(pl.OpenGroups, "system"):
		pl.AddonGroup = "system"
	case len(pl.OpenGroups) > 0:
		pl.AddonGroup = pl.OpenGroups[0]
	}
	pl.ControllerGroup = p.Karpenter.Controller.NodeGroup
	pl.ControllerSelector = map[string]string{"kubernetes.io/os": "linux"}
	pl.ControllerTolerations = []Toleration{{Key: "CriticalAddonsOnly", Operator: "Exists"}}
	if g, ok := p.NodeGroups[pl.ControllerGroup]; ok {
		maps.Copy(pl.ControllerSelector, g.Labels)
		pl.ControllerTolerations = append(pl.ControllerTolerations, Tolerations(g.Taints)...)
	}
	return pl
}
