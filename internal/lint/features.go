package lint

import (
	"strings"
)

// used returns the paths of the profile a feature path matches that the
// profile sets: * stands for any name of the map before it, [] for any
// index of the list before it.
func (c *Context) used(pattern string) []string {
	switch pattern {
	case "nodeOverlays":
		if len(c.P.NodeOverlays) > 0 {
			return []string{pattern}
		}
		return nil
	case "capacityBuffers":
		if len(c.P.CapacityBuffers) > 0 {
			return []string{pattern}
		}
		return nil
	}
	var out []string
	for _, p := range c.expand(pattern) {
		if c.Src.Has(p) {
			out = append(out, p)
		}
	}
	return out
}

// expand turns a feature path into the concrete paths of the profile.
func (c *Context) expand(pattern string) []string {
	head, rest, _ := strings.Cut(pattern, ".*.")
	var keys []string
	switch head {
	case "nodeClasses":
		keys = names(c.P.NodeClasses)
	case "nodePools":
		keys = names(c.P.NodePools)
	default:
		return []string{pattern}
	}
	var out []string
	for _, k := range keys {
		base := at(head, field(k))
		list, leaf, ok := strings.Cut(rest, "[].")
		if !ok {
			out = append(out, at(base, rest))
			continue
		}
		n := 0
		switch list {
		case "blockDevices":
			n = len(c.P.NodeClasses[k].BlockDevices)
		case "capacityReservationSelectorTerms":
			n = len(c.P.NodeClasses[k].CapacityReservationSelectorTerms)
		}
		for i := range n {
			out = append(out, at(base, list, i, leaf))
		}
	}
	return out
}
