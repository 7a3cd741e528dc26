package printer

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/karpgen/karpgen/internal/iam/guardrails"
	"github.com/karpgen/karpgen/internal/util/escape"
)

// Explain prints the requests of vet --explain-iam as a table: each with
// its decision and the statements that decide it, or where none allows
// it, the policy that lacks the allow and the statements nearest to one.
func Explain(w io.Writer, rows []guardrails.Row) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ENV\tFROM\tACTION\tRESOURCE\tDECISION\tBY")
	for _, r := range rows {
		resource := r.Resource
		if len(r.Types) > 0 {
			resource += " (" + strings.Join(r.Types, ", ") + ")"
		}
		by := strings.Join(r.By, "; ")
		if r.Missing != "" {
			by = "no allow in " + r.Missing
			if len(r.Near) > 0 {
				by += ": " + strings.Join(r.Near, "; ")
			}
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", escape.Terminal(r.Env), escape.Terminal(r.From), r.Action, escape.Terminal(resource), r.Decision, escape.Terminal(by))
	}
	return tw.Flush()
}
