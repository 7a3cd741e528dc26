package simulate

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/karpgen/karpgen/internal/instancetypes"
	"github.com/karpgen/karpgen/internal/util/escape"
)

// Report is a simulation's answer with where each workload was read.
type Report struct {
	Env       string           `json:"env"`
	Workloads []WorkloadReport `json:"workloads"`
	Nodes     []NodeReport     `json:"nodes"`
}

// WorkloadReport is where one workload's pods land.
type WorkloadReport struct {
	File string `json:"file"`
	Line int    `json:"line"`
	Placement
}

// NodeReport is a node Karpenter would launch, with the on-demand price
// of its cheapest type where the tables price the region.
type NodeReport struct {
	Node
	Price float64 `json:"price,omitempty"`
}

// NewReport joins the request's workloads to the answer.
func NewReport(env, region string, req *Request, resp *Response) *Report {
	r := &Report{Env: env}
	for i, p := range resp.Workloads {
		r.Workloads = append(r.Workloads, WorkloadReport{File: req.Workloads[i].File, Line: req.Workloads[i].Line, Placement: p})
	}
	prices, _ := instancetypes.Prices(region)
	for _, n := range resp.Nodes {
		nr := NodeReport{Node: n}
		if len(n.InstanceTypes) > 0 {
			nr.Price = prices[n.InstanceTypes[0]]
		}
		r.Nodes = append(r.Nodes, nr)
	}
	return r
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
	pods, onGroups := 0, 0
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
	fmt.Fprintf(w, "simulate %s: %s, %s: %d on node groups, %d on %s, %d Pending\n",
		r.Env, count(len(r.Workloads), "workload"), count(pods, "pod"), onGroups, pods-onGroups-r.Pending(), count(len(r.Nodes), "new node"), r.Pending())
	for _, wl := range r.Workloads {
		fmt.Fprintf(w, "\n%s:%d: %s %s/%s", escape.Line(wl.File), wl.Line, wl.Kind, escape.Terminal(wl.Namespace), escape.Terminal(wl.Name))
		if wl.DaemonSet {
			fmt.Fprintf(w, ": on every node it tolerates\n")
		} else {
			fmt.Fprintf(w, ": %s\n", count(wl.Pods, "pod"))
		}
		for _, g := range slices.Sorted(maps.Keys(wl.NodeGroups)) {
			if wl.DaemonSet {
				fmt.Fprintf(w, "  node group %s (every node)\n", escape.Terminal(g))
			} else {
				fmt.Fprintf(w, "  %d on node group %s\n", wl.NodeGroups[g], escape.Terminal(g))
			}
		}
		byPool := map[string][]int{}
		for i := range wl.Nodes {
			byPool[r.Nodes[i].NodePool] = append(byPool[r.Nodes[i].NodePool], i)
		}
		for _, pool := range slices.Sorted(maps.Keys(byPool)) {
			nodes := byPool[pool]
			slices.Sort(nodes)
			n := 0
			for _, i := range nodes {
				n += wl.Nodes[i]
			}
			if wl.DaemonSet {
				fmt.Fprintf(w, "  pool %s: %s (%s)\n", escape.Terminal(pool), count(len(nodes), "new node"), nodeList(nodes))
			} else {
				fmt.Fprintf(w, "  %d on pool %s: %s (%s)\n", n, escape.Terminal(pool), count(len(nodes), "new node"), nodeList(nodes))
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
		types := strings.Join(n.InstanceTypes[:min(len(n.InstanceTypes), 3)], ", ")
		if more := len(n.InstanceTypes) - 3; more > 0 {
			types += fmt.Sprintf(" and %d more", more)
		}
		price := ""
		if n.Price > 0 {
			price = fmt.Sprintf(", on-demand $%.4f/h", n.Price)
		}
		fmt.Fprintf(w, "  #%d pool %s: %s; %s requesting %s%s\n", i+1, escape.Terminal(n.NodePool), types, count(n.Pods, "pod"), escape.Terminal(requests(n.Requests)), price)
	}
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
