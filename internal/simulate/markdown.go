package simulate

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/karpgen/karpgen/internal/facts/instancetypes"
	"github.com/karpgen/karpgen/internal/util/escape"
)

// Markdown writes the report as a pull-request comment: the headline, a
// table of the workloads, one of the nodes Karpenter would launch, and
// the capacity by pool with its price an hour.
func (r *Report) Markdown(w io.Writer) {
	pods, onGroups := r.podCounts()
	fmt.Fprintf(w, "### karpgen simulate %s\n\n", escape.Code(r.Env))
	fmt.Fprintf(w, "%s of %s: %d on node groups, %d on %s, %d Pending", count(pods, "pod"), count(len(r.Workloads), "workload"),
		onGroups, pods-onGroups-r.Pending(), count(len(r.Nodes), "new node"), r.Pending())
	if r.Rounds > 0 {
		fmt.Fprintf(w, "; settled in %s", count(r.Rounds, "round"))
	}
	fmt.Fprintln(w, ".")
	for _, a := range r.Assumed {
		fmt.Fprintf(w, "\nAssumed: %s.\n", escape.Markdown(a))
	}
	if len(r.Workloads) > 0 {
		fmt.Fprintf(w, "\n| Workload | Pods | Where | Pending |\n|---|---|---|---|\n")
	}
	for _, wl := range r.Workloads {
		pods := fmt.Sprint(wl.Pods)
		if wl.DaemonSet {
			pods = "every node"
		}
		var where, pending []string
		for _, g := range slices.Sorted(maps.Keys(wl.NodeGroups)) {
			where = append(where, fmt.Sprintf("node group %s: %d", escape.Code(g), wl.NodeGroups[g]))
		}
		for _, on := range r.onPools(wl) {
			if wl.DaemonSet {
				where = append(where, fmt.Sprintf("pool %s: %s", escape.Code(on.pool), nodeList(on.nodes)))
			} else {
				where = append(where, fmt.Sprintf("pool %s: %d on %s", escape.Code(on.pool), on.pods, nodeList(on.nodes)))
			}
		}
		for _, reason := range slices.Sorted(maps.Keys(wl.Pending)) {
			pending = append(pending, fmt.Sprintf("%d: %s", wl.Pending[reason], escape.Markdown(reason)))
		}
		for _, key := range slices.Sorted(maps.Keys(wl.GroupOnly)) {
			group, reason, _ := strings.Cut(key, ": ")
			where = append(where, fmt.Sprintf("node group %s while it has room: %d (Karpenter launches nothing for them: %s)", escape.Code(group), wl.GroupOnly[key], escape.Markdown(reason)))
		}
		fmt.Fprintf(w, "| %s %s (%s) | %s | %s | %s |\n", wl.Kind, escape.Code(wl.Namespace+"/"+wl.Name), escape.Code(fmt.Sprintf("%s:%d", wl.File, wl.Line)),
			pods, strings.Join(where, "<br>"), strings.Join(pending, "<br>"))
	}
	if len(r.Nodes) == 0 {
		return
	}
	fmt.Fprintf(w, "\n**Nodes Karpenter would launch**\n\n| # | Pool | Round | Instance type | Zone | Pods | Requests | $/hour |\n|---|---|---|---|---|---|---|---|\n")
	for i, n := range r.Nodes {
		price := "—"
		if r.Capacity.Priced {
			price = instancetypes.PerHour(n.Price)
		}
		pods := fmt.Sprint(n.Pods)
		if n.Daemons > 0 {
			pods += fmt.Sprintf(" and %d of DaemonSets", n.Daemons)
		}
		fmt.Fprintf(w, "| %d | %s | %d | %s %s | %s | %s | %s | %s |\n", i+1, escape.Code(n.NodePool), n.Round,
			escape.Code(n.InstanceType), n.CapacityType, escape.Code(n.Zone), pods, escape.Markdown(requests(n.Requests)), price)
	}
	c := r.Capacity
	fmt.Fprintf(w, "\n**Capacity**: %s", count(c.Nodes, "new node"))
	if c.Priced {
		fmt.Fprintf(w, ", %s", instancetypes.PerHour(c.PerHour))
	}
	fmt.Fprintf(w, "\n\n| Pool | Nodes | Instance mix | $/hour |\n|---|---|---|---|\n")
	for _, p := range c.Pools {
		price := "—"
		if c.Priced {
			price = instancetypes.PerHour(p.PerHour)
		}
		fmt.Fprintf(w, "| %s | %d | %s | %s |\n", escape.Code(p.Pool), p.Nodes, escape.Markdown(MixText(p.Mix)), price)
	}
	fmt.Fprintf(w, "\nPrices: %s.\n", escape.Markdown(c.Prices))
}
