package generators

import (
	"fmt"
	"strings"

	"github.com/karpgen/karpgen/internal/iam/cfnpreview"
	"github.com/karpgen/karpgen/internal/model"
	"github.com/karpgen/karpgen/internal/util/escape"
)

// SummaryStack is the section render --state adds to SUMMARY.md: what
// deploying iam/cloudformation.yaml to the environment's stack does to
// what the capture says the stack holds, resource by resource, and
// whether anything the controller or the nodes use is deleted, replaced
// or fails. Every name in it comes from the capture, and is escaped.
func SummaryStack(e *model.Env, capture string, exists bool, status string, changes []cfnpreview.Change) []byte {
	n := e.Names
	var b strings.Builder
	w := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	fate := "which exists"
	if !exists {
		fate = "which does not exist yet"
	}
	w("\n## The deploy, previewed\n\n")
	w("From the capture in %s: deploying `%s` to stack `%s`, %s, does this (%s):\n\n",
		escape.Code(capture), model.FileCloudFormation, n.Stack, fate, cfnpreview.Counts(changes))
	w("| Resource | Type | Name | CloudFormation | Why |\n|---|---|---|---|---|\n")
	for _, c := range changes {
		w("| %s | %s | %s | %s | %s |\n", escape.Markdown(c.Logical), escape.Markdown(c.Type), escape.Code(c.Name), c.Action, escape.Markdown(c.Why))
	}
	harm := cfnpreview.Harmful(changes)
	updatable, why := cfnpreview.Updatable(status)
	if !exists {
		updatable = true
	}
	if len(harm) == 0 && updatable {
		w("\nNothing the controller or the nodes use is deleted or replaced, and nothing fails.\n")
		return []byte(b.String())
	}
	w("\n**Do not deploy it as it is.**\n\n")
	if !updatable {
		w("- stack %s is in status %s: %s.\n", escape.Code(n.Stack), escape.Markdown(status), escape.Markdown(why))
	}
	for _, c := range harm {
		what := c.Why
		if c.Harm != "" && c.Action != cfnpreview.Fails {
			what += ", and " + c.Harm
		}
		w("- %s %s: %s.\n", c.Action, escape.Markdown(c.Logical), escape.Markdown(what))
	}
	return []byte(b.String())
}
