package lint

import (
	"fmt"
	"slices"

	"github.com/karpgen/karpgen/internal/facts"
)

// checkAWSGates holds karpenter.awsFeatureGates to the chart's
// settings.awsFeatureGates.
func checkAWSGates(c *Context) {
	var list []string
	for _, g := range c.Minor.AWSFeatureGates {
		list = append(list, g.Name)
	}
	for _, g := range names(c.P.Karpenter.AWSFeatureGates) {
		path := at("karpenter.awsFeatureGates", field(g))
		switch {
		case slices.Contains(list, g):
		case len(list) == 0:
			since := facts.Arrival.AWSFeatureGates
			c.Report(path, "remove it or use Karpenter "+since+" or later",
				"AWS feature gates arrive in Karpenter %s; the profile runs %s", since, c.Version)
		default:
			hint := "known AWS gates: " + quoteList(list)
			if s := closest(g, list); s != "" {
				hint = fmt.Sprintf("did you mean %q?", s)
			}
			c.Report(path, hint, "AWS feature gate %q does not exist in Karpenter %s", g, c.Minor.Minor)
		}
	}
}

// minKarpenterFor is the oldest supported minor that runs on Kubernetes k.
func minKarpenterFor(k string) string {
	for _, m := range facts.Minors {
		if !facts.MinorLess(m.Kubernetes[1], k) && !facts.MinorLess(k, m.Kubernetes[0]) {
			return m.Minor
		}
	}
	return ""
}
