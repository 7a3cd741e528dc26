package lint

import (
	"regexp"
	"slices"

	"github.com/karpgen/karpgen/internal/diag"
)

// issuerRE is an EKS OIDC issuer, with or without its https:// scheme:
// the URL `aws eks describe-cluster` prints, or the host form trust
// policies and Terraform outputs use.
var issuerRE = regexp.MustCompile(`^(?:https://)?oidc\.eks\.([a-z0-9-]+)\.(amazonaws\.com(?:\.cn)?)/id/[A-Za-z0-9]+/?$`)

var identityRules = []*Rule{
	{
		ID: "auth/oidc-issuer", Severity: diag.Error, Group: "Auth",
		Summary: "cluster.oidcIssuer is an EKS issuer (https://oidc.eks.<region>.<domain>/id/<ID>, with or without https://) of the cluster's region and partition.",
		Hint:    "copy it from `aws eks describe-cluster --name <cluster> --query cluster.identity.oidc.issuer`",
		check: func(c *Context) {
			issuer := c.P.Cluster.OIDCIssuer
			if issuer == "" {
				return
			}
			m := issuerRE.FindStringSubmatch(issuer)
			switch {
			case m == nil:
				c.Report("cluster.oidcIssuer", "", "%q is not an EKS OIDC issuer (https://oidc.eks.<region>.amazonaws.com/id/<ID>)", issuer)
			case m[1] != c.P.Cluster.Region:
				c.Report("cluster.oidcIssuer", "", "the OIDC issuer is in region %s, not in the cluster's region %s: the trust policy would name another cluster's provider", m[1], c.P.Cluster.Region)
			case m[2] != c.E.Names.URLSuffix:
				c.Report("cluster.oidcIssuer", "", "the OIDC issuer's domain %s is not partition %s's (%s)", m[2], c.E.Names.Partition, c.E.Names.URLSuffix)
			}
		},
	},
	{
		ID: "ops/spot-interruption", Severity: diag.Warning, Group: "Operations",
		Summary: "A pool that may launch spot instances has interruption handling (karpenter.interruptionQueue): spot reclaims come with two minutes' notice.",
		Hint:    "set karpenter.interruptionQueue: true, or drop \"spot\" from the pool's capacity types",
		check: func(c *Context) {
			if c.P.Karpenter.InterruptionQueue {
				return
			}
			for p := range c.pools() {
				if slices.Contains(c.P.NodePools[p].CapacityTypes, "spot") {
					c.Report(at("nodePools", field(p), "capacityTypes"), "",
						"pool %q may launch spot instances, but the environment has no interruption queue: the two-minute reclaim notice reaches no one and pods are killed without draining", p)
				}
			}
		},
	},
}
