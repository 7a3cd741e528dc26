package lint

import (
	"strings"

	"github.com/karpgen/karpgen/internal/diag"
	"github.com/karpgen/karpgen/internal/iam/guardrails"
	"github.com/karpgen/karpgen/internal/profile"
)

// authRules are the rules of the group Auth.
var authRules = []*Rule{
	{
		ID: "auth/irsa-issuer", Severity: diag.Error, Group: "Auth",
		Summary: "auth \"irsa\" needs cluster.oidcIssuer for the trust policy.",
		Hint:    "set cluster.oidcIssuer to the cluster's issuer URL (aws eks describe-cluster --query cluster.identity.oidc.issuer), or use auth \"podIdentity\"",
		check: func(c *Context) {
			if c.P.Karpenter.Auth == profile.AuthIRSA && c.P.Cluster.OIDCIssuer == "" {
				c.Report("karpenter.auth", "", "auth \"irsa\" needs cluster.oidcIssuer: without it the controller role has no one to trust")
			}
		},
	},
	{
		ID: "auth/oidc-issuer", Severity: diag.Error, Group: "Auth",
		Summary: "cluster.oidcIssuer is an EKS issuer (https://oidc.eks.<region>.<domain>/id/<ID>, with or without https://) of the cluster's region and partition.",
		Hint:    "copy it from `aws eks describe-cluster --name <cluster> --query cluster.identity.oidc.issuer`",
		check: func(c *Context) {
			issuer := c.P.Cluster.OIDCIssuer
			if issuer == "" {
				return
			}
			m := issuerRE().FindStringSubmatch(issuer)
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
		ID: "iam/guardrail-key", Severity: diag.Warning, Group: "Auth",
		Summary: "No guardrail's deny is passed only because karpgen's model of a request lacks a condition key the deny tests (the controller's real request may carry it).",
		Hint:    "check whether the controller's request carries the key; if it does, the statement may deny it",
		check: func(c *Context) {
			us, err := guardrails.Uncertainties(c.E)
			if err != nil {
				return // iam/guardrail reports it
			}
			for _, u := range us {
				var also []diag.Pos
				if u.Statement.Pos.Line > 0 {
					also = append(also, u.Statement.Pos)
				}
				c.ReportAlso(also, u.Path, "", "%s on %s is allowed only because the request karpgen models carries no %s, which %s tests",
					u.Action, u.Resource, strings.Join(u.Keys, ", "), u.Statement.Ref)
			}
		},
	},
	{
		ID: "iam/guardrail", Severity: diag.Error, Group: "Auth",
		Summary: "The organization's guardrails (service control policies by level, resource control policies, the permissions boundary) let through every request the controller makes for the profile: launches with their tags, region, instance types, metadata options and volumes, tagging, iam:PassRole, the queue and the controller's reads.",
		check: func(c *Context) {
			denials, err := guardrails.Check(c.E)
			if err != nil {
				c.Report("guardrails", "fix the document: karpgen refuses what it cannot evaluate", "the guardrails cannot be evaluated: %v", err)
				return
			}
			for _, d := range denials {
				var also []diag.Pos
				for _, s := range d.Statements {
					if s.Pos.Line > 0 {
						also = append(also, s.Pos)
					}
				}
				c.ReportAlso(also, d.Path, d.Hint, "%s", d.Message())
			}
		},
	},
}
