package lint

//go:generate go run ../../hack/gendocs rules

import (
	"fmt"
	"strings"
)

// Markdown renders the rule catalog as docs/rules.md.
func Markdown() []byte {
	var b strings.Builder
	b.WriteString("# karpgen vet rules\n\n")
	b.WriteString("Generated from the rule catalog (`go generate ./internal/lint`); do not edit.\n\n")
	b.WriteString("Every finding names the profile field it is about (`file:line:col`), the environment, the rule ID and a fix hint. ")
	b.WriteString("Errors stop `karpgen vet` and `karpgen render` with exit code 3 and nothing written; warnings are printed and never fail. ")
	b.WriteString("Schema errors (syntax, types, unknown fields) are reported under the ID `schema`.\n")
	// One section per group, in the order the groups first come in the
	// catalog; the rules of a group in catalog order.
	var groups []string
	byGroup := map[string][]*Rule{}
	for _, r := range catalog {
		if _, seen := byGroup[r.Group]; !seen {
			groups = append(groups, r.Group)
		}
		byGroup[r.Group] = append(byGroup[r.Group], r)
	}
	for _, g := range groups {
		fmt.Fprintf(&b, "\n## %s\n\n| ID | Severity | Checks |\n|---|---|---|\n", g)
		for _, r := range byGroup[g] {
			fmt.Fprintf(&b, "| `%s` | %s | %s |\n", r.ID, r.Severity, strings.ReplaceAll(r.Summary, "|", "\\|"))
		}
	}
	return []byte(b.String())
}
