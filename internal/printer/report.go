package printer

import (
	"fmt"
	"io"

	"github.com/karpgen/karpgen/internal/doctor"
	"github.com/karpgen/karpgen/internal/fleetdiff"
	"github.com/karpgen/karpgen/internal/iam/guardrails"
	"github.com/karpgen/karpgen/internal/plan/migrate"
	"github.com/karpgen/karpgen/internal/plan/promote"
	"github.com/karpgen/karpgen/internal/plan/rotate"
	"github.com/karpgen/karpgen/internal/plan/upgrade"
	"github.com/karpgen/karpgen/internal/simulate"
)

// Formats are the values of -o: text for a terminal, markdown for a
// change ticket or a pull-request comment, json for scripts.
const (
	FormatText     = "text"
	FormatMarkdown = "markdown"
	FormatJSON     = "json"
)

// Report prints a command's report in the format -o names. Every report
// has a text and a JSON form; those without a Markdown form are not
// offered it by their command, and print as text if asked.
func Report(w io.Writer, format string, v any) error {
	switch r := v.(type) {
	case *fleetdiff.Report:
		return in(w, format, r, Diff, DiffMarkdown, nil)
	case *doctor.Report:
		return in(w, format, r, Doctor, nil, nil)
	case *migrate.Runbook:
		return in(w, format, r, Migrate, MigrateMarkdown, nil)
	case *promote.Plan:
		return in(w, format, r, Promote, PromoteMarkdown, nil)
	case *rotate.Plan:
		return in(w, format, r, Rotate, nil, nil)
	case *simulate.Report:
		return in(w, format, r, Simulate, SimulateMarkdown, nil)
	case *simulate.DisruptionReport:
		return in(w, format, r, Disruption, DisruptionMarkdown, nil)
	case *upgrade.Plan:
		return in(w, format, r, Upgrade, UpgradeMarkdown, UpgradeJSON)
	case []guardrails.Row:
		return in(w, format, r, Explain, nil, nil)
	}
	return fmt.Errorf("printer: no report of type %T", v)
}

// in prints r by the form format names; a nil json form is the one JSON
// printer's.
func in[T any](w io.Writer, format string, r T, text, markdown, json func(io.Writer, T) error) error {
	switch {
	case format == FormatJSON && json != nil:
		return json(w, r)
	case format == FormatJSON:
		return JSON(w, r)
	case format == FormatMarkdown && markdown != nil:
		return markdown(w, r)
	}
	return text(w, r)
}
