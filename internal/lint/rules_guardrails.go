package lint

import (
	"github.com/karpgen/karpgen/internal/diag"
	"github.com/karpgen/karpgen/internal/guardrails"
)

var guardrailRules = []*Rule{
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
