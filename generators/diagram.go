package generators

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/karpgen/karpgen/internal/model"
	"github.com/karpgen/karpgen/internal/profile"
	"github.com/karpgen/karpgen/internal/util/escape"
)

// diagram draws the environment for SUMMARY.md as a Mermaid flowchart
// (GitHub renders it): the node groups and pools with their labels and
// taints, and which workloads land where.
func diagram(p *profile.Profile, pl model.Placement) string {
	// Node IDs are numbered, so that no two names (sys-a, sys.a) share
	// one; names appear only in labels, escaped.
	ids := map[string]string{}
	nodeID := func(prefix, name string) string {
		key := prefix + "\x00" + name
		if id, ok := ids[key]; ok {
			return id
		}
		id := fmt.Sprintf("%s%d", prefix, len(ids)+1)
		ids[key] = id
		return id
	}
	var b strings.Builder
	w := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	w("```mermaid\nflowchart LR\n")
	w("  subgraph groups[\"EKS managed node groups\"]\n")
	for _, g := range slices.Sorted(maps.Keys(p.NodeGroups)) {
		ng := p.NodeGroups[g]
		w("    %s[\"%s\"]\n", nodeID("g", g), mermaidText(g, labelsPlain(ng.Labels), taintsPlain(ng.Taints)))
	}
	w("  end\n")
	w("  subgraph pools[\"Karpenter node pools\"]\n")
	for _, name := range slices.Sorted(maps.Keys(p.NodePools)) {
		np := p.NodePools[name]
		w("    %s[\"%s\"]\n", nodeID("p", name), mermaidText(name, strings.Join(np.CapacityTypes, ", "), labelsPlain(np.Labels), taintsPlain(np.Taints)))
	}
	w("  end\n")
	for _, g := range pl.OpenGroups {
		w("  w_system([\"system pods\"]) --> %s\n", nodeID("g", g))
	}
	for _, pool := range pl.OpenPools {
		w("  w_any([\"pods without tolerations\"]) --> %s\n", nodeID("p", pool))
	}
	if pl.AddonGroup != "" {
		w("  w_addons([\"critical add-ons\"]) --> %s\n", nodeID("g", pl.AddonGroup))
	}
	if pl.ControllerGroup != "" {
		w("  w_controller([\"Karpenter controller\"]) --> %s\n", nodeID("g", pl.ControllerGroup))
	}
	for _, name := range slices.Sorted(maps.Keys(p.NodePools)) {
		if pl.PoolRepels(name) {
			w("  %s([\"%s\"]) --> %s\n", nodeID("t", name), mermaidText("pods tolerating "+taintsPlain(p.NodePools[name].Taints)), nodeID("p", name))
		}
	}
	w("```\n\n")
	return b.String()
}

// mermaidText joins lines for a node's label, each escaped.
func mermaidText(lines ...string) string {
	var kept []string
	for _, l := range lines {
		if l != "" {
			kept = append(kept, escape.Mermaid(l))
		}
	}
	return strings.Join(kept, "<br/>")
}

func labelsPlain(labels map[string]string) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(labels)) {
		parts = append(parts, k+"="+labels[k])
	}
	return strings.Join(parts, ", ")
}

func taintsPlain(ts []profile.Taint) string {
	var parts []string
	for _, t := range ts {
		kv := t.Key
		if t.Value != "" {
			kv += "=" + t.Value
		}
		parts = append(parts, kv+":"+t.Effect)
	}
	return strings.Join(parts, ", ")
}
