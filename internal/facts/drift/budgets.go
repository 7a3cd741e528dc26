package drift

import (
	"fmt"
	"slices"
	"strings"
)

// Budget is a disruption budget of a NodePool that applies to drift.
type Budget struct {
	Nodes    string `json:"nodes"`
	Schedule string `json:"schedule,omitempty"`
	Duration string `json:"duration,omitempty"`
}

// Pacing lists the budgets of a NodePool (as decoded from YAML) that limit
// the replacement of drifted nodes (those without reasons, or naming
// Drifted) and says in a sentence what they allow. A pool without budgets
// has the CRD's default of 10%.
func Pacing(nodePool map[string]any) ([]Budget, string) {
	list, set := Dig(nodePool, "spec", "disruption", "budgets").([]any)
	if !set {
		return []Budget{{Nodes: "10%"}}, "at most 10% of the pool's nodes at a time (the default budget)"
	}
	var out []Budget
	for _, item := range list {
		m, _ := item.(map[string]any)
		if reasons, ok := m["reasons"].([]any); ok && !slices.Contains(reasons, any("Drifted")) {
			continue
		}
		b := Budget{Nodes: fmt.Sprint(m["nodes"])}
		b.Schedule, _ = m["schedule"].(string)
		b.Duration, _ = m["duration"].(string)
		out = append(out, b)
	}
	if len(out) == 0 {
		return nil, "no budget applies to drift: every drifted node may be replaced at once"
	}
	var always, windows []string
	closed := false
	for _, b := range out {
		if b.Schedule == "" {
			if b.Nodes == "0" || b.Nodes == "0%" {
				closed = true
			}
			always = append(always, b.Nodes)
			continue
		}
		windows = append(windows, fmt.Sprintf("%s during %q for %s", b.Nodes, b.Schedule, b.Duration))
	}
	var s string
	switch {
	case closed:
		s = "a budget of 0 nodes for drift: nothing is replaced until it opens"
	case len(always) == 1:
		s = "at most " + always[0] + " of the pool's nodes at a time"
	case len(always) > 1:
		s = "at most the least of " + strings.Join(always, ", ") + " of the pool's nodes at a time"
	default:
		s = "no limit outside the budgets' windows"
	}
	if len(windows) > 0 {
		s += "; " + strings.Join(windows, "; ")
	}
	return out, s
}
