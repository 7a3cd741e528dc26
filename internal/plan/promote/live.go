package promote

import (
	"fmt"
	"strings"

	"github.com/karpgen/karpgen/internal/doctor/live"
)

// Read says, from a capture of To (nil: none), how many nodes the
// promotion replaces: each class's nodes drift to the new release. It
// names the PodDisruptionBudgets that hold those replacements now.
// Without a capture the plan says what it cannot count.
func (p *Plan) Read(c *live.Cluster) {
	if len(p.Changes) == 0 {
		return
	}
	if c == nil {
		p.Assumes = []string{"how many of " + p.To + "'s nodes each node class runs is not known (give --state to count the nodes the move replaces)"}
		return
	}
	p.State = c.Dir
	if !c.Knows(live.PartNodes) {
		p.Live = append(p.Live, "the capture holds no NodeClaims: the nodes the move replaces are not counted")
	}
	for _, ch := range p.Changes {
		if !c.Knows(live.PartNodes) {
			break
		}
		nodes := c.NodesOf("", ch.Class)
		n, pools, images := len(nodes), live.Distinct(nodes, "pool"), live.Distinct(nodes, "image")
		if n == 0 {
			p.Live = append(p.Live, fmt.Sprintf("node class %s runs no node in the capture: the move replaces none", ch.Class))
			continue
		}
		p.Live = append(p.Live, fmt.Sprintf("node class %s runs %d node(s) in the capture (pools %s; images %s): each drifts to the new release and is replaced, within its pool's disruption budgets",
			ch.Class, n, strings.Join(pools, ", "), strings.Join(images, ", ")))
	}
	if len(c.Holding) > 0 {
		p.Live = append(p.Live, "PodDisruptionBudgets that allow no disruption now hold the replacement of their pods' nodes: "+strings.Join(c.Holding, ", "))
	}
}
