package simulate

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/karpgen/karpgen/internal/facts/instancetypes"
	"github.com/karpgen/karpgen/internal/fleetdiff"
	"github.com/karpgen/karpgen/internal/util/escape"
)

// Report is a simulation's answer with where each workload was read,
// and what the nodes Karpenter launches cost.
type Report struct {
	Env       string           `json:"env"`
	Workloads []WorkloadReport `json:"workloads"`
	// Nodes are the nodes Karpenter launches. A node's price is its
	// offering's, NodeOverlays' adjustments applied, where the tables
	// price the region, and 0 where they do not.
	Nodes []Node `json:"nodes"`
	// Rounds is how many rounds of scheduling the cluster took to settle.
	Rounds int `json:"rounds"`
	// Assumed says what the simulation took for what the workloads do
	// not say.
	Assumed  []string `json:"assumed,omitempty"`
	Capacity Capacity `json:"capacity"`
}

// WorkloadReport is where one workload's pods land.
type WorkloadReport struct {
	File string `json:"file"`
	Line int    `json:"line"`
	Placement
}

// Capacity is what the nodes Karpenter launches come to, in all and by
// pool.
type Capacity struct {
	Nodes int `json:"nodes"`
	// Mix counts the nodes by instance type and capacity type
	// ("c5.xlarge spot").
	Mix     map[string]int `json:"mix"`
	PerHour float64        `json:"perHour,omitempty"`
	Pools   []PoolCapacity `json:"pools"`
	// Prices says where the prices come from, or why there are none;
	// NodeOverlays' price adjustments apply.
	Prices string `json:"prices"`
	// Priced: the tables price the region.
	Priced bool `json:"priced"`
}

// PoolCapacity is what one pool's new nodes come to.
type PoolCapacity struct {
	Pool    string         `json:"pool"`
	Nodes   int            `json:"nodes"`
	Mix     map[string]int `json:"mix"`
	PerHour float64        `json:"perHour,omitempty"`
}

// spotNote says how spot nodes are priced: Karpenter's tables hold no
// spot prices (the provider reads them from EC2 as it runs).
const spotNote = "spot nodes are priced on demand, an upper bound: Karpenter ships no spot prices"

// NewReport joins the request's workloads to the answer and prices the
// nodes from Karpenter's own tables for the region.
func NewReport(env, region string, req *Request, resp *Response) *Report {
	r := &Report{Env: env, Rounds: resp.Rounds, Assumed: resp.Assumed}
	for i, p := range resp.Workloads {
		r.Workloads = append(r.Workloads, WorkloadReport{File: req.Workloads[i].File, Line: req.Workloads[i].Line, Placement: p})
	}
	_, priced := instancetypes.Prices(region)
	r.Capacity = Capacity{Mix: map[string]int{}, Priced: priced}
	if priced {
		r.Capacity.Prices = instancetypes.PriceSource(region)
		if slices.ContainsFunc(resp.Nodes, func(n Node) bool { return n.CapacityType == "spot" }) {
			r.Capacity.Prices += "; " + spotNote
		}
	} else {
		r.Capacity.Prices = fmt.Sprintf("none: %s's tables price %s, not %s", instancetypes.Source(), strings.Join(instancetypes.PricedRegions(), ", "), region)
	}
	byPool := map[string]*PoolCapacity{}
	for _, n := range resp.Nodes {
		nr := n
		if !priced {
			nr.Price = 0
		}
		r.Nodes = append(r.Nodes, nr)
		pc := byPool[n.NodePool]
		if pc == nil {
			pc = &PoolCapacity{Pool: n.NodePool, Mix: map[string]int{}}
			byPool[n.NodePool] = pc
		}
		mix := n.InstanceType + " " + n.CapacityType
		pc.Nodes++
		pc.Mix[mix]++
		pc.PerHour += nr.Price
		r.Capacity.Nodes++
		r.Capacity.Mix[mix]++
		r.Capacity.PerHour += nr.Price
	}
	for _, pool := range slices.Sorted(maps.Keys(byPool)) {
		r.Capacity.Pools = append(r.Capacity.Pools, *byPool[pool])
	}
	return r
}

// Summary is the report's capacity as diff compares it.
func (r *Report) Summary() fleetdiff.Capacity {
	return fleetdiff.Capacity{Nodes: r.Capacity.Nodes, Mix: MixText(r.Capacity.Mix), PerHour: r.Capacity.PerHour, Pending: r.Pending()}
}

// MixText writes an instance mix: "2 c5.xlarge spot, 1 m5.large on-demand".
func MixText(mix map[string]int) string {
	var s []string
	for _, k := range slices.Sorted(maps.Keys(mix)) {
		s = append(s, fmt.Sprintf("%d %s", mix[k], k))
	}
	return strings.Join(s, ", ")
}

// Pending is how many pods stay Pending.
func (r *Report) Pending() int {
	n := 0
	for _, w := range r.Workloads {
		for _, c := range w.Pending {
			n += c
		}
	}
	return n
}

// Text writes the report for a terminal: every workload with where its
// pods land, then the nodes Karpenter would launch.
func (r *Report) Text(w io.Writer) {
	pods, onGroups := r.podCounts()
	settled := ""
	if r.Rounds > 0 {
		settled = "; settled in " + count(r.Rounds, "round")
	}
	fmt.Fprintf(w, "simulate %s: %s, %s: %d on node groups, %d on %s, %d Pending%s\n",
		r.Env, count(len(r.Workloads), "workload"), count(pods, "pod"), onGroups, pods-onGroups-r.Pending(), count(len(r.Nodes), "new node"), r.Pending(), settled)
	for _, a := range r.Assumed {
		fmt.Fprintf(w, "assumed: %s\n", escape.Terminal(a))
	}
	for _, wl := range r.Workloads {
		fmt.Fprintf(w, "\n%s:%d: %s %s/%s", escape.Line(wl.File), wl.Line, wl.Kind, escape.Terminal(wl.Namespace), escape.Terminal(wl.Name))
		if wl.DaemonSet {
			fmt.Fprintf(w, ": on every node it tolerates\n")
		} else {
			fmt.Fprintf(w, ": %s", count(wl.Pods, "pod"))
			if wl.Rounds > 1 {
				fmt.Fprintf(w, ", placed in %s", count(wl.Rounds, "round"))
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
		for _, on := range r.onPools(wl) {
			if wl.DaemonSet {
				fmt.Fprintf(w, "  pool %s: %s (%s)\n", escape.Terminal(on.pool), count(len(on.nodes), "new node"), nodeList(on.nodes))
			} else {
				fmt.Fprintf(w, "  %d on pool %s: %s (%s)\n", on.pods, escape.Terminal(on.pool), count(len(on.nodes), "new node"), nodeList(on.nodes))
			}
		}
		for _, reason := range slices.Sorted(maps.Keys(wl.Pending)) {
			fmt.Fprintf(w, "  %d Pending: %s\n", wl.Pending[reason], escape.Terminal(reason))
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
			price = " at " + instancetypes.PerHour(n.Price)
		}
		daemons := ""
		if n.Daemons > 0 {
			daemons = fmt.Sprintf(" and %d of DaemonSets", n.Daemons)
		}
		fmt.Fprintf(w, "  #%d pool %s, round %d: %s %s in %s%s; %s%s requesting %s\n", i+1, escape.Terminal(n.NodePool), n.Round,
			n.InstanceType, n.CapacityType, n.Zone, price, count(n.Pods, "pod"), daemons, escape.Terminal(requests(n.Requests)))
	}
	if len(r.Nodes) > 0 {
		r.Capacity.Text(w)
	}
}

// Text writes the capacity: in all, by pool, and where prices come from.
func (c *Capacity) Text(w io.Writer) {
	total := ""
	if c.Priced {
		total = ", " + instancetypes.PerHour(c.PerHour)
	}
	fmt.Fprintf(w, "\nCapacity: %s%s\n", count(c.Nodes, "new node"), total)
	for _, p := range c.Pools {
		price := ""
		if c.Priced {
			price = ", " + instancetypes.PerHour(p.PerHour)
		}
		fmt.Fprintf(w, "  pool %s: %s (%s)%s\n", escape.Terminal(p.Pool), count(p.Nodes, "node"), MixText(p.Mix), price)
	}
	fmt.Fprintf(w, "Prices: %s\n", c.Prices)
}

// podCounts are the pods of the workloads (a DaemonSet's counted once)
// and those of them on node groups, as the headline gives them.
func (r *Report) podCounts() (pods, onGroups int) {
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
// index, ascending) and how many pods.
type onPool struct {
	pool  string
	nodes []int
	pods  int
}

// onPools are a workload's new nodes grouped by pool, pools by name.
func (r *Report) onPools(wl WorkloadReport) []onPool {
	byPool := map[string]*onPool{}
	for i, n := range wl.Nodes {
		pool := r.Nodes[i].NodePool
		if byPool[pool] == nil {
			byPool[pool] = &onPool{pool: pool}
		}
		byPool[pool].nodes = append(byPool[pool].nodes, i)
		byPool[pool].pods += n
	}
	var out []onPool
	for _, pool := range slices.Sorted(maps.Keys(byPool)) {
		on := byPool[pool]
		slices.Sort(on.nodes)
		out = append(out, *on)
	}
	return out
}

// count writes n things, "1 thing" or "2 things".
func count(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return fmt.Sprintf("%d %ss", n, thing)
}

func nodeList(nodes []int) string {
	var s []string
	for _, i := range nodes {
		s = append(s, fmt.Sprintf("#%d", i+1))
	}
	return strings.Join(s, " ")
}

func requests(r map[string]string) string {
	var s []string
	for _, k := range slices.Sorted(maps.Keys(r)) {
		s = append(s, k+" "+r[k])
	}
	return strings.Join(s, ", ")
}
