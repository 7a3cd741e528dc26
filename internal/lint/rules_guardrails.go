package lint

import (
	"strings"

	"github.com/karpgen/karpgen/internal/diag"
	"github.com/karpgen/karpgen/internal/iam/guardrails"
)

var guardrailRules = []*Rule{
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
