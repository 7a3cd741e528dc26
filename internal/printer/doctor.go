package printer

import (
	"fmt"
	"io"
	"strings"

	"github.com/karpgen/karpgen/internal/diag"
	"github.com/karpgen/karpgen/internal/doctor"
	"github.com/karpgen/karpgen/internal/util/escape"
)

// Doctor writes a doctor report for a terminal: a count of the checks by
// outcome, the findings (what was expected, what was found, the fix) and
// the checks that were skipped or not checked, with why.
func Doctor(w io.Writer, r *doctor.Report) error {
	var b strings.Builder
	count := map[string]int{}
	var findings []diag.Finding
	for _, res := range r.Results {
		count[res.Status]++
		findings = append(findings, res.Findings...)
	}
	fmt.Fprintf(&b, "doctor %s: %d checks, %d ok, %d failed, %d skipped, %d not checked, %d not applicable\n", r.Env, len(r.Results),
		count["ok"], count["failed"], count["skipped"], count["not-checked"], count["not-applicable"])
	// What was found comes from the captured state: untrusted text,
	// which Findings shows with nothing a terminal acts on.
	Findings(&b, findings)
	for _, res := range r.Results {
		switch res.Status {
		case "skipped":
			fmt.Fprintf(&b, "skipped: %s: %s\n", res.Check, escape.Terminal(res.Skipped))
		case "not-checked":
			fmt.Fprintf(&b, "not checked: %s: %s\n", res.Check, escape.Terminal(res.NotChecked))
		case "failed":
			if res.Skipped != "" {
				fmt.Fprintf(&b, "partly skipped: %s: %s\n", res.Check, escape.Terminal(res.Skipped))
			}
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}
