package printer

import (
	"fmt"
	"io"
	"strings"

	"github.com/karpgen/karpgen/internal/fleetdiff"
	"github.com/karpgen/karpgen/internal/plan/rotate"
	"github.com/karpgen/karpgen/internal/util/escape"
)

// Rotate prints a rotation as text: what the change does at once, then
// each step's profile edits, the commands that follow it and what it
// does, as karpgen diff tells objects and IAM.
func Rotate(w io.Writer, p *rotate.Plan) error {
	var b strings.Builder
	line := func(format string, args ...any) { b.WriteString(escape.Line(fmt.Sprintf(format, args...)) + "\n") }
	line("Rotate pool %s of %s. Applied at once, the change does this:", p.Pool, p.Env)
	briefDiff(line, "  ", p.Direct)
	for i, s := range p.Steps {
		line("")
		line("Step %d. %s", i+1, s.Title)
		for _, c := range s.Changes {
			line("  - %s", c)
		}
		line("  then:")
		for _, t := range s.Then {
			line("    %s", t)
		}
		line("  what it does:")
		briefDiff(line, "    ", s.Diff)
	}
	if len(p.Notes) > 0 {
		line("")
		for _, n := range p.Notes {
			line("%s", n)
		}
	}
	if p.State != "" {
		line("")
		line("From the capture in %s:", p.State)
		for _, l := range p.Live {
			line("  %s", l)
		}
	}
	for _, a := range p.Assumes {
		line("")
		line("Planned without a capture (--state): %s.", a)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// briefDiff tells a one-environment report's headline, objects and IAM
// files, indented.
func briefDiff(line func(string, ...any), indent string, r *fleetdiff.Report) {
	line("%s%s", indent, headline(r))
	for _, e := range r.Changes {
		for _, o := range e.Objects {
			for _, l := range ObjectLines(o) {
				line("%s%s", indent, l)
			}
		}
		for _, pol := range e.IAM {
			line("%sIAM %s (%s%s)", indent, pol.File, pol.Status, trust(pol))
		}
	}
}
