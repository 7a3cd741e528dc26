package sched

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"

	simulate "github.com/karpgen/karpgen/internal/simulate/wire"
)

// maxOrders bounds the zone orders canon tries.
const maxOrders = 5040

// canon puts an answer in one form. Karpenter breaks ties between zones
// of equal count by a map's order, which Go draws at random: two runs
// may launch the same nodes with the zones of equivalent nodes swapped.
// Zones the request cannot tell apart (every instance type offered alike
// in them, every pool taking both or neither, no workload or volume
// naming one) are therefore renamed among themselves to the order that
// writes the answer first, and the nodes are sorted: equal answers read
// the same.
func canon(resp *simulate.Response, req *simulate.Request, pools []*karpv1.NodePool) {
	classes := zoneClasses(req, pools)
	best, bestKey := map[string]string{}, ""
	n := 0
	for order := range zoneOrders(classes) {
		if n++; n > maxOrders {
			break
		}
		if key := strings.Join(nodeKeys(resp, order), "\n"); bestKey == "" || key < bestKey {
			best, bestKey = maps.Clone(order), key
		}
	}
	for i := range resp.Nodes {
		if z, ok := best[resp.Nodes[i].Zone]; ok {
			resp.Nodes[i].Zone = z
		}
	}
	keys := nodeKeys(resp, nil)
	idx := make([]int, len(resp.Nodes))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		return cmp.Or(cmp.Compare(resp.Nodes[a].Round, resp.Nodes[b].Round), strings.Compare(keys[a], keys[b]))
	})
	nodes := make([]simulate.Node, len(idx))
	moved := make([]int, len(idx))
	for to, from := range idx {
		nodes[to], moved[from] = resp.Nodes[from], to
	}
	resp.Nodes = nodes
	for w := range resp.Workloads {
		if on := resp.Workloads[w].Nodes; on != nil {
			re := map[int]int{}
			for i, c := range on {
				re[moved[i]] = c
			}
			resp.Workloads[w].Nodes = re
		}
	}
}

// nodeKeys writes each node, its zone renamed by order, with the
// workloads whose pods it runs.
func nodeKeys(resp *simulate.Response, order map[string]string) []string {
	on := make([][]string, len(resp.Nodes))
	for w, pl := range resp.Workloads {
		for i, c := range pl.Nodes {
			on[i] = append(on[i], fmt.Sprintf("%06d:%d", w, c))
		}
	}
	keys := make([]string, len(resp.Nodes))
	for i, n := range resp.Nodes {
		zone := n.Zone
		if z, ok := order[zone]; ok {
			zone = z
		}
		slices.Sort(on[i])
		keys[i] = fmt.Sprintf("%04d %s %s %s %s %v %s", n.Round, n.NodePool, zone, n.InstanceType, n.CapacityType, n.Requests, strings.Join(on[i], ","))
	}
	slices.Sort(keys)
	return keys
}

// zoneClasses are the sets of zones the request cannot tell apart.
func zoneClasses(req *simulate.Request, pools []*karpv1.NodePool) [][]string {
	offers := map[string][]string{}
	for _, class := range slices.Sorted(maps.Keys(req.InstanceTypes)) {
		for _, it := range req.InstanceTypes[class] {
			for _, o := range it.Offerings {
				offers[o.Zone] = append(offers[o.Zone], fmt.Sprintf("%s/%s/%s/%g", class, it.Name, o.CapacityType, o.Price))
			}
		}
	}
	var text strings.Builder
	for _, w := range slices.Concat(req.Workloads, req.Volumes) {
		text.WriteString(w.YAML)
	}
	alike := func(a, b string) bool {
		if !slices.Equal(offers[a], offers[b]) || strings.Contains(text.String(), a) || strings.Contains(text.String(), b) {
			return false
		}
		for _, np := range pools {
			for _, r := range np.Spec.Template.Spec.Requirements {
				if r.Key == corev1.LabelTopologyZone && slices.Contains(r.Values, a) != slices.Contains(r.Values, b) {
					return false
				}
			}
		}
		return true
	}
	var classes [][]string
	for _, z := range slices.Sorted(maps.Keys(offers)) {
		placed := false
		for i, c := range classes {
			if alike(c[0], z) {
				classes[i], placed = append(c, z), true
				break
			}
		}
		if !placed {
			classes = append(classes, []string{z})
		}
	}
	return classes
}

// zoneOrders yields every renaming of zones within their classes.
func zoneOrders(classes [][]string) func(func(map[string]string) bool) {
	return func(yield func(map[string]string) bool) {
		order := map[string]string{}
		var walk func(i int) bool
		walk = func(i int) bool {
			if i == len(classes) {
				return yield(order)
			}
			for perm := range permutations(classes[i]) {
				for j, z := range classes[i] {
					order[z] = perm[j]
				}
				if !walk(i + 1) {
					return false
				}
			}
			return true
		}
		walk(0)
	}
}

// permutations yields every order of s.
func permutations(s []string) func(func([]string) bool) {
	return func(yield func([]string) bool) {
		p := slices.Clone(s)
		var rec func(k int) bool
		rec = func(k int) bool {
			if k == len(p) {
				return yield(p)
			}
			for i := k; i < len(p); i++ {
				p[k], p[i] = p[i], p[k]
				if !rec(k + 1) {
					return false
				}
				p[k], p[i] = p[i], p[k]
			}
			return true
		}
		rec(0)
	}
}
