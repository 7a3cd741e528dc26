package lint

import (
	"fmt"
	"slices"

	"github.com/karpgen/karpgen/internal/model"
	"github.com/karpgen/karpgen/internal/profile"
)

type taintList struct {
	base   string
	taints []profile.Taint
}

func (c *Context) taintPaths() []taintList {
	var out []taintList
	for _, g := range names(c.P.NodeGroups) {
		out = append(out, taintList{at("nodeGroups", field(g), "taints"), c.P.NodeGroups[g].Taints})
	}
	for p, np := range c.pools() {
		out = append(out, taintList{at("nodePools", field(p), "taints"), np.Taints})
		out = append(out, taintList{at("nodePools", field(p), "startupTaints"), np.StartupTaints})
	}
	return out
}

func unknownRef(what, name string, known []string) (string, string) {
	hint := "known: " + quoteList(known)
	if s := closest(name, known); s != "" {
		hint = fmt.Sprintf("did you mean %q? (known: %s)", s, quoteList(known))
	}
	return fmt.Sprintf("%s %q does not exist", what, name), hint
}

// roleNames are the names of the environment's node roles, its own first.
func roleNames(n model.Names) []string {
	var out []string
	for _, r := range n.NodeRoles() {
		if !slices.Contains(out, r.Name) {
			out = append(out, r.Name)
		}
	}
	return out
}
