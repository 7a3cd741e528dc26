package lint

import (
	"fmt"
	"slices"
	"strings"
	"unicode"

	"github.com/karpgen/karpgen/internal/model"
	"github.com/karpgen/karpgen/internal/profile"
)

var repels = model.Repels

// instanceTypeBound is an upper bound of the instance types a pool allows,
// when its requirements bound them at all.
func instanceTypeBound(np profile.NodePool) (int, bool) {
	if len(np.InstanceTypes) > 0 {
		return len(np.InstanceTypes), true
	}
	if len(np.InstanceFamilies) == 0 {
		return 0, false
	}
	sizes := len(np.InstanceCPU)
	if len(np.InstanceSizes) > 0 && (sizes == 0 || len(np.InstanceSizes) < sizes) {
		sizes = len(np.InstanceSizes)
	}
	if sizes == 0 {
		return 0, false
	}
	return len(np.InstanceFamilies) * sizes, true
}

// driftHeld reports whether every pool of a node class has a disruption
// budget for the Drifted reason, so that a new AMI release does not
// replace its nodes whenever Karpenter sees it.
func driftHeld(p *profile.Profile, class string) bool {
	pools := 0
	for _, np := range p.NodePools {
		if np.NodeClass != class {
			continue
		}
		pools++
		held := false
		for _, b := range np.Disruption.Budgets {
			held = held || slices.Contains(b.Reasons, "Drifted")
		}
		if !held {
			return false
		}
	}
	return pools > 0
}

// production says why an environment is a production one, from what its
// profile states: a word "prod" (or "prod2") or "production" in its name
// or its cluster's name ("prod", "shop-prod", "prod_eu"; not "nonprod" or
// "products"), or a node class tag Environment, Env or Stage of that
// value. "" when nothing says so.
func production(env string, p *profile.Profile) string {
	isProd := func(s string) bool {
		for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
			if w == "production" || strings.HasPrefix(w, "prod") && strings.Trim(w[4:], "0123456789") == "" {
				return true // prod, prod2, production
			}
		}
		return false
	}
	switch {
	case isProd(env):
		return fmt.Sprintf("its name %q says so", env)
	case isProd(p.Cluster.Name):
		return fmt.Sprintf("its cluster's name %q says so", p.Cluster.Name)
	}
	for _, n := range names(p.NodeClasses) {
		for _, k := range names(p.NodeClasses[n].Tags) {
			switch strings.ToLower(k) {
			case "environment", "env", "stage":
				if v := p.NodeClasses[n].Tags[k]; isProd(v) {
					return fmt.Sprintf("node class %s is tagged %s=%s", n, k, v)
				}
			}
		}
	}
	return ""
}
