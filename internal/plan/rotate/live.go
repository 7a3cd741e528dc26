package rotate

import (
	"fmt"
	"strings"

	"github.com/karpgen/karpgen/internal/doctor/live"
)

// Read says, from a capture of the environment (nil: none), how many
// nodes the rotation drains: the old pool's, in its second step, and the
// PodDisruptionBudgets that hold those drains now. Without a capture the
// plan says what it cannot count.
func (p *Plan) Read(c *live.Cluster) {
	if c == nil {
		p.Assumes = []string{"how many nodes pool " + p.Pool + " runs is not known (give --state to count the nodes its drain replaces)"}
		return
	}
	p.State = c.Dir
	if !c.Knows(live.PartNodes) {
		p.Live = append(p.Live, "the capture holds no NodeClaims: the nodes the drain replaces are not counted")
	} else {
		nodes := c.NodesOf(p.Pool, "")
		n, types, zones := len(nodes), live.Distinct(nodes, "type"), live.Distinct(nodes, "zone")
		if n == 0 {
			p.Live = append(p.Live, "pool "+p.Pool+" runs no node in the capture: nothing is drained")
		} else {
			p.Live = append(p.Live, fmt.Sprintf("pool %s runs %d node(s) in the capture (%s in %s): step 2 drains them onto %s, within the old pool's disruption budgets",
				p.Pool, n, strings.Join(types, ", "), strings.Join(zones, ", "), p.Next))
		}
	}
	if len(c.Holding) > 0 {
		p.Live = append(p.Live, "PodDisruptionBudgets that allow no disruption now hold the drain of their pods' nodes: "+strings.Join(c.Holding, ", "))
	}
}
