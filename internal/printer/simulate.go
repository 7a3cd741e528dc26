package printer

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/karpgen/karpgen/internal/facts/instancetypes"
	"github.com/karpgen/karpgen/internal/simulate"
	"github.com/karpgen/karpgen/internal/util/escape"
)

// Simulate writes a simulation's report for a terminal: every workload with where its
// pods land, then the nodes Karpenter would launch.
func Simulate(w io.Writer, r *simulate.Report) error {
	return buffered(w, r, simulateText)
}

// SimulateMarkdown writes a simulation's report as a pull-request comment: the headline, a
// table of the workloads, one of the nodes Karpenter would launch, and
// the capacity by pool with its price an hour.
func SimulateMarkdown(w io.Writer, r *simulate.Report) error {
	return buffered(w, r, simulateMarkdown)
}

// buffered writes what print writes of r in one write, whose error it
// returns.
func buffered[T any](w io.Writer, r T, print func(io.Writer, T)) error {
	var b strings.Builder
	print(&b, r)
	_, err := io.WriteString(w, b.String())
	return err
}

func simulateText(w io.Writer, r *simulate.Report) {
	pods, onGroups := podCounts(r)
	settled := ""
	if r.Rounds > 0 {
		settled = "; settled in " + things(r.Rounds, "round")
	}
	fmt.Fprintf(w, "simulate %s: %s, %s: %d on node groups, %d on %s, %d Pending%s\n",
		r.Env, things(len(r.Workloads), "workload"), things(pods, "pod"), onGroups, pods-onGroups-pending(r), things(len(r.Nodes), "new node"), pending(r), settled)
	for _, a := range r.Assumed {
		fmt.Fprintf(w, "assumed: %s\n", escape.Terminal(a))
	}
	for _, wl := range r.Workloads {
		fmt.Fprintf(w, "\n%s:%d: %s %s/%s", escape.Line(wl.File), wl.Line, wl.Kind, escape.Terminal(wl.Namespace), escape.Terminal(wl.Name))
		if wl.DaemonSet {
			fmt.Fprintf(w, ": on every node it tolerates\n")
		} else {
			fmt.Fprintf(w, ": %s", things(wl.Pods, "pod"))
			if wl.Rounds > 1 {
				fmt.Fprintf(w, ", placed in %s", things(wl.Rounds, "round"))
			}
			fmt.Fprintln(w)
		}
		for _, g := range slices.Sorted(maps.Keys(wl.NodeGroups)) {
			if wl.DaemonSet {
				fmt.Fprintf(w, "  node group %s (every node)\n", escape.Terminal(g))
			} else {
				fmt.Fprintf(w, "  %d on node group %s\n", wl.NodeGroups[g], escape.Terminal(g))
			}
		}
		for _, on := range onPools(r, wl) {
			if wl.DaemonSet {
				fmt.Fprintf(w, "  pool %s: %s (%s)\n", escape.Terminal(on.Pool), things(len(on.Nodes), "new node"), simNodes(on.Nodes))
			} else {
				fmt.Fprintf(w, "  %d on pool %s: %s (%s)\n", on.Pods, escape.Terminal(on.Pool), things(len(on.Nodes), "new node"), simNodes(on.Nodes))
			}
		}
		for _, reason := range slices.Sorted(maps.Keys(wl.Pending)) {
			fmt.Fprintf(w, "  %d Pending: %s\n", wl.Pending[reason], escape.Terminal(reason))
		}
		for _, a := range wl.Refused {
			fmt.Fprintf(w, "    and pool %s, which they select, would refuse them whatever its limits: %s\n", escape.Terminal(a.Pool), escape.Terminal(a.Why))
		}
		for _, key := range slices.Sorted(maps.Keys(wl.GroupOnly)) {
			group, reason, _ := strings.Cut(key, ": ")
			fmt.Fprintf(w, "  %d on node group %s while it has room, asking for no group; Karpenter launches nothing for them: %s\n", wl.GroupOnly[key], escape.Terminal(group), escape.Terminal(reason))
		}
	}
	if len(r.Nodes) > 0 {
		fmt.Fprintf(w, "\nNodes Karpenter would launch:\n")
	}
	for i, n := range r.Nodes {
		price := ""
		if n.Price > 0 {
			price = " at " + instancetypes.PerHour(n.Price, r.Capacity.Currency)
		}
		daemons := ""
		if n.Daemons > 0 {
			daemons = fmt.Sprintf(" and %d of DaemonSets", n.Daemons)
		}
		fmt.Fprintf(w, "  #%d pool %s, round %d: %s %s in %s%s; %s%s requesting %s\n", i+1, escape.Terminal(n.NodePool), n.Round,
			n.InstanceType, n.CapacityType, n.Zone, price, things(n.Pods, "pod"), daemons, escape.Terminal(simRequests(n.Requests)))
	}
	if len(r.Nodes) > 0 || len(r.Capacity.Groups) > 0 {
		simulateCapacity(w, r.Capacity)
	}
}

// simulateCapacity writes the capacity: in all, by pool, and where prices come from.
func simulateCapacity(w io.Writer, c simulate.Capacity) {
	total := ""
	if c.Priced {
		total = ", " + instancetypes.PerHour(c.PerHour, c.Currency)
	}
	fmt.Fprintf(w, "\nCapacity: %s%s\n", things(c.Nodes, "new node"), total)
	for _, p := range c.Pools {
		price := ""
		if c.Priced {
			price = ", " + instancetypes.PerHour(p.PerHour, c.Currency)
		}
		fmt.Fprintf(w, "  pool %s: %s (%s)%s\n", escape.Terminal(p.Pool), things(p.Nodes, "node"), instancetypes.MixText(p.Mix), price)
	}
	for _, g := range c.Groups {
		fmt.Fprintf(w, "  node group %s, kept: %s (%s on-demand)%s\n", escape.Terminal(g.Group), things(g.Nodes, "node"), escape.Terminal(g.InstanceType), groupPrice(g, c))
	}
	fmt.Fprintf(w, "Prices: %s\n", c.Prices)
}

func simulateMarkdown(w io.Writer, r *simulate.Report) {
	pods, onGroups := podCounts(r)
	fmt.Fprintf(w, "### karpgen simulate %s\n\n", escape.Code(r.Env))
	fmt.Fprintf(w, "%s of %s: %d on node groups, %d on %s, %d Pending", things(pods, "pod"), things(len(r.Workloads), "workload"),
		onGroups, pods-onGroups-pending(r), things(len(r.Nodes), "new node"), pending(r))
	if r.Rounds > 0 {
		fmt.Fprintf(w, "; settled in %s", things(r.Rounds, "round"))
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
		for _, on := range onPools(r, wl) {
			if wl.DaemonSet {
				where = append(where, fmt.Sprintf("pool %s: %s", escape.Code(on.Pool), simNodes(on.Nodes)))
			} else {
				where = append(where, fmt.Sprintf("pool %s: %d on %s", escape.Code(on.Pool), on.Pods, simNodes(on.Nodes)))
			}
		}
		for _, reason := range slices.Sorted(maps.Keys(wl.Pending)) {
			pending = append(pending, fmt.Sprintf("%d: %s", wl.Pending[reason], escape.Markdown(reason)))
		}
		for _, a := range wl.Refused {
			pending = append(pending, fmt.Sprintf("pool %s, which they select, would refuse them whatever its limits: %s", escape.Code(a.Pool), escape.Markdown(a.Why)))
		}
		for _, key := range slices.Sorted(maps.Keys(wl.GroupOnly)) {
			group, reason, _ := strings.Cut(key, ": ")
			where = append(where, fmt.Sprintf("node group %s while it has room: %d (Karpenter launches nothing for them: %s)", escape.Code(group), wl.GroupOnly[key], escape.Markdown(reason)))
		}
		fmt.Fprintf(w, "| %s %s (%s) | %s | %s | %s |\n", wl.Kind, escape.Code(wl.Namespace+"/"+wl.Name), escape.Code(fmt.Sprintf("%s:%d", wl.File, wl.Line)),
			pods, strings.Join(where, "<br>"), strings.Join(pending, "<br>"))
	}
	if len(r.Nodes) == 0 && len(r.Capacity.Groups) == 0 {
		return
	}
	if len(r.Nodes) > 0 {
		fmt.Fprintf(w, "\n**Nodes Karpenter would launch**\n\n| # | Pool | Round | Instance type | Zone | Pods | Requests | Per hour |\n|---|---|---|---|---|---|---|---|\n")
		for i, n := range r.Nodes {
			price := "—"
			if r.Capacity.Priced {
				price = instancetypes.PerHour(n.Price, r.Capacity.Currency)
			}
			pods := fmt.Sprint(n.Pods)
			if n.Daemons > 0 {
				pods += fmt.Sprintf(" and %d of DaemonSets", n.Daemons)
			}
			fmt.Fprintf(w, "| %d | %s | %d | %s %s | %s | %s | %s | %s |\n", i+1, escape.Code(n.NodePool), n.Round,
				escape.Code(n.InstanceType), n.CapacityType, escape.Code(n.Zone), pods, escape.Markdown(simRequests(n.Requests)), price)
		}
	}
	c := r.Capacity
	fmt.Fprintf(w, "\n**Capacity**: %s", things(c.Nodes, "new node"))
	if c.Priced {
		fmt.Fprintf(w, ", %s", instancetypes.PerHour(c.PerHour, c.Currency))
	}
	fmt.Fprintf(w, "\n\n| Pool | Nodes | Instance mix | Per hour |\n|---|---|---|---|\n")
	for _, p := range c.Pools {
		price := "—"
		if c.Priced {
			price = instancetypes.PerHour(p.PerHour, c.Currency)
		}
		fmt.Fprintf(w, "| %s | %d | %s | %s |\n", escape.Code(p.Pool), p.Nodes, escape.Markdown(instancetypes.MixText(p.Mix)), price)
	}
	for _, g := range c.Groups {
		price := strings.TrimPrefix(groupPrice(g, c), ", ")
		if price == "" {
			price = "—"
		}
		fmt.Fprintf(w, "| node group %s, kept | %d | %s on-demand | %s |\n", escape.Code(g.Group), g.Nodes, escape.Code(g.InstanceType), price)
	}
	fmt.Fprintf(w, "\nPrices: %s.\n", escape.Markdown(c.Prices))
}

// groupPrice is ", $X/h" for a node group of a priced type, else "".
func groupPrice(g simulate.GroupCapacity, c simulate.Capacity) string {
	if !c.Priced || g.PerHour == 0 && g.Nodes > 0 {
		return ""
	}
	return ", " + instancetypes.PerHour(g.PerHour, c.Currency)
}

// things writes n things, "1 thing" or "2 things".
func things(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return fmt.Sprintf("%d %ss", n, thing)
}

// simNodes names new nodes by their number in the report: "#1 #3".
func simNodes(nodes []int) string {
	var s []string
	for _, i := range nodes {
		s = append(s, fmt.Sprintf("#%d", i+1))
	}
	return strings.Join(s, " ")
}

// simRequests writes a node's requests, by resource.
func simRequests(r map[string]string) string {
	var s []string
	for _, k := range slices.Sorted(maps.Keys(r)) {
		s = append(s, k+" "+r[k])
	}
	return strings.Join(s, ", ")
}

// podCounts are the pods of the workloads (a DaemonSet's counted once)
// and those of them on node groups, as the headline gives them.
func podCounts(r *simulate.Report) (pods, onGroups int) {
	for _, wl := range r.Workloads {
		pods += wl.Pods
		if !wl.DaemonSet {
			for _, n := range wl.NodeGroups {
				onGroups += n
			}
			for _, n := range wl.GroupOnly {
				onGroups += n
			}
		}
	}
	return pods, onGroups
}

// onPool is where a workload's pods land in one pool: the nodes (by
// index into the report's nodes, ascending) and how many pods.
type onPool struct {
	Pool  string
	Nodes []int
	Pods  int
}

// onPools are a workload's new nodes grouped by pool, pools by name.
func onPools(r *simulate.Report, wl simulate.WorkloadReport) []onPool {
	byPool := map[string]*onPool{}
	for i, n := range wl.Nodes {
		pool := r.Nodes[i].NodePool
		if byPool[pool] == nil {
			byPool[pool] = &onPool{Pool: pool}
		}
		byPool[pool].Nodes = append(byPool[pool].Nodes, i)
		byPool[pool].Pods += n
	}
	var out []onPool
	for _, pool := range slices.Sorted(maps.Keys(byPool)) {
		on := byPool[pool]
		slices.Sort(on.Nodes)
		out = append(out, *on)
	}
	return out
}

// pending is how many pods stay Pending.
func pending(r *simulate.Report) int {
	n := 0
	for _, w := range r.Workloads {
		for _, c := range w.Pending {
			n += c
		}
	}
	return n
}
