package generators

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/karpgen/karpgen/internal/model"
	"github.com/karpgen/karpgen/internal/profile"
)

// diagram draws the environment for SUMMARY.md as a Mermaid flowchart
// (GitHub renders it): the node groups and pools with their labels and
// taints, and which workloads land where.
func diagram(p *profile.Profile, pl model.Placement) string {
	var b strings.Builder
	w := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	w("```mermaid\nflowchart LR\n")
	w("  subgraph groups[\"EKS managed node groups\"]\n")
	for _, g := range sortedKeys(p.NodeGroups) {
		ng := p.NodeGroups[g]
		w("    %s[\"%s\"]\n", nodeID("g", g), mermaidText(g, labelsPlain(ng.Labels), taintsPlain(ng.Taints)))
	}
	w("  end\n")
	w("  subgraph pools[\"Karpenter node pools\"]\n")
	for _, name := range sortedKeys(p.NodePools) {
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
	for _, name := range sortedKeys(p.NodePools) {
		if pl.PoolRepels(name) {
			w("  %s([\"%s\"]) --> %s\n", nodeID("t", name), mermaidText("pods tolerating "+taintsPlain(p.NodePools[name].Taints)), nodeID("p", name))
		}
	}
	w("```\n\n")
	return b.String()
}

var unsafeID = regexp.MustCompile(`[^A-Za-z0-9]`)

// nodeID is a Mermaid node id for a name: letters and digits, prefixed.
func nodeID(prefix, name string) string { return prefix + "_" + unsafeID.ReplaceAllString(name, "_") }

// mermaidText joins lines for a node's label, with quotes escaped.
func mermaidText(lines ...string) string {
	var kept []string
	for _, l := range lines {
		if l != "" {
			kept = append(kept, strings.ReplaceAll(l, `"`, "#quot;"))
		}
	}
	return strings.Join(kept, "<br/>")
}

func labelsPlain(labels map[string]string) string {
	var parts []string
	for _, k := range sortedKeys(labels) {
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
