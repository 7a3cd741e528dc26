package simulate

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Move is a workload whose pods land elsewhere in one report than in
// another of the same workloads.
type Move struct {
	File          string
	Line          int
	Workload      string
	Before, After string
}

// Moves compares where the same workloads land before and after a
// change: a workload moves when the node groups or pools its pods land
// on, or its Pending pods, differ.
func Moves(before, after *Report) []Move {
	var out []Move
	for i, a := range after.Workloads {
		if i >= len(before.Workloads) {
			break
		}
		b := before.Workloads[i]
		was, is := where(b, before), where(a, after)
		if was != is {
			out = append(out, Move{File: a.File, Line: a.Line, Workload: a.Kind + " " + a.Namespace + "/" + a.Name, Before: was, After: is})
		}
	}
	return out
}

// where says where a workload's pods land: node groups and pools by
// name, and its Pending pods with upstream's reasons.
func where(w WorkloadReport, r *Report) string {
	var parts []string
	for _, g := range slices.Sorted(maps.Keys(w.NodeGroups)) {
		parts = append(parts, "node group "+g)
	}
	pools := map[string]bool{}
	for i := range w.Nodes {
		pools[r.Nodes[i].NodePool] = true
	}
	for _, p := range slices.Sorted(maps.Keys(pools)) {
		parts = append(parts, "pool "+p)
	}
	for _, reason := range slices.Sorted(maps.Keys(w.Pending)) {
		parts = append(parts, fmt.Sprintf("%d Pending: %s", w.Pending[reason], reason))
	}
	if len(parts) == 0 {
		return "nowhere"
	}
	return strings.Join(parts, "; ")
}
