package simulate

import (
	"maps"
	"slices"

	"github.com/karpgen/karpgen/internal/facts/instancetypes"
	"github.com/karpgen/karpgen/internal/fleetdiff"
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
	// Refused are the pools the Pending pods select that would refuse
	// them whatever their limits allow, for what upstream's reasons do
	// not already say.
	Refused []Refusal `json:"refused,omitempty"`
}

// Refusal is what keeps pods off a pool they select.
type Refusal struct {
	Pool string `json:"pool"`
	Why  string `json:"why"`
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
	// Groups are the kept node groups the profile gives a type and a
	// size, which Nodes and PerHour leave out (they are Karpenter's new
	// nodes) and diff's totals count.
	Groups []GroupCapacity `json:"groups,omitempty"`
	// Prices says where the prices come from, or why there are none;
	// NodeOverlays' price adjustments apply.
	Prices string `json:"prices"`
	// Priced: the tables price the region.
	Priced bool `json:"priced"`
	// Currency is the ISO 4217 code of every price, when priced: CNY in
	// the China regions.
	Currency string `json:"currency,omitempty"`
}

// GroupCapacity is what one kept node group of a known type and size
// comes to: its nodes run whatever Karpenter launches beside them, at
// the on-demand price of its type.
type GroupCapacity struct {
	Group        string  `json:"group"`
	InstanceType string  `json:"instanceType"`
	Nodes        int     `json:"nodes"`
	PerHour      float64 `json:"perHour,omitempty"`
}

// PoolCapacity is what one pool's new nodes come to.
type PoolCapacity struct {
	Pool    string         `json:"pool"`
	Nodes   int            `json:"nodes"`
	Mix     map[string]int `json:"mix"`
	PerHour float64        `json:"perHour,omitempty"`
}

// NewReport joins the request's workloads to the answer and prices the
// nodes and node groups as the request's offerings were priced.
func NewReport(env string, prices Prices, req *Request, resp *Response) *Report {
	r := &Report{Env: env, Rounds: resp.Rounds, Assumed: resp.Assumed}
	for i, p := range resp.Workloads {
		r.Workloads = append(r.Workloads, WorkloadReport{File: req.Workloads[i].File, Line: req.Workloads[i].Line, Placement: p, Refused: refusals(p)})
	}
	priced := prices.Priced()
	r.Capacity = Capacity{Mix: map[string]int{}, Priced: priced, Prices: prices.Source}
	if priced {
		r.Capacity.Currency = prices.Currency
		if prices.Spot == nil && slices.ContainsFunc(resp.Nodes, func(n Node) bool { return n.CapacityType == "spot" }) {
			r.Capacity.Prices += "; " + spotNote
		}
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
	for _, g := range req.NodeGroups {
		if g.InstanceType == "" || g.Size == nil {
			continue
		}
		r.Capacity.Groups = append(r.Capacity.Groups, GroupCapacity{Group: g.Name, InstanceType: g.InstanceType, Nodes: *g.Size, PerHour: float64(*g.Size) * prices.OnDemand[g.InstanceType]})
	}
	return r
}

// Summary is the report's capacity as diff compares it: Karpenter's new
// nodes and the node groups of a known type and size, so that replacing
// a group with a pool shows what it saves.
func (r *Report) Summary() fleetdiff.Capacity {
	c := r.Capacity
	mix, perHour, nodes := maps.Clone(c.Mix), c.PerHour, c.Nodes
	for _, g := range c.Groups {
		mix[g.InstanceType+" on-demand in node group "+g.Group] += g.Nodes
		perHour += g.PerHour
		nodes += g.Nodes
	}
	return fleetdiff.Capacity{Nodes: nodes, Mix: instancetypes.MixText(mix), PerHour: perHour, Pending: r.Pending()}
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
