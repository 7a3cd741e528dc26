package printer

import (
	"fmt"
	"io"
	"strings"

	"github.com/karpgen/karpgen/internal/plan/promote"
	"github.com/karpgen/karpgen/internal/util/escape"
)

// Promote prints a promotion as text: the fields of the profile to set,
// the node classes left as they are, then what rendering the changed
// profile does, as karpgen diff prints it.
func Promote(w io.Writer, p *promote.Plan) error {
	var b strings.Builder
	line := func(format string, args ...any) { b.WriteString(escape.Line(fmt.Sprintf(format, args...)) + "\n") }
	if len(p.Changes) == 0 {
		line("Nothing to promote from %s to %s.", p.From, p.To)
	} else {
		line("Promote the AMI releases %s runs to %s: set in the profile of %s", p.From, p.To, p.To)
		for _, c := range p.Changes {
			line("  %s: %q (now %q)", c.Path, c.To, c.From)
			if c.Note != "" {
				line("    note: %s", c.Note)
			}
		}
	}
	for _, s := range p.Skipped {
		line("  node class %s stays: %s", s.Class, s.Reason)
	}
	if p.State != "" {
		line("From the capture in %s:", p.State)
	}
	for _, l := range p.Live {
		line("  %s", l)
	}
	for _, a := range p.Assumes {
		line("Planned without a capture (--state): %s.", a)
	}
	if _, err := io.WriteString(w, b.String()); err != nil || p.Diff == nil {
		return err
	}
	fmt.Fprintf(w, "\nThen `karpgen render %s` and commit; what that does:\n\n", escape.Terminal(p.To))
	return Diff(w, p.Diff)
}

// PromoteMarkdown prints a promotion for a pull request or a change
// ticket.
func PromoteMarkdown(w io.Writer, p *promote.Plan) error {
	var b strings.Builder
	fmt.Fprintf(&b, "## Promote %s's AMI releases to %s\n\n", escape.Markdown(p.From), escape.Markdown(p.To))
	if len(p.Changes) == 0 {
		b.WriteString("Nothing to promote.\n")
	} else {
		b.WriteString("| field of the profile | now | set to |\n|---|---|---|\n")
		for _, c := range p.Changes {
			fmt.Fprintf(&b, "| %s | %s | %s |\n", escape.Code(c.Path), escape.Code(c.From), escape.Code(c.To))
		}
		for _, c := range p.Changes {
			if c.Note != "" {
				fmt.Fprintf(&b, "\n**Note on node class %s:** %s.\n", escape.Code(c.Class), escape.Markdown(c.Note))
			}
		}
	}
	if len(p.Skipped) > 0 {
		b.WriteString("\n")
		for _, s := range p.Skipped {
			fmt.Fprintf(&b, "- Node class %s stays: %s.\n", escape.Code(s.Class), escape.Markdown(s.Reason))
		}
	}
	if p.State != "" {
		fmt.Fprintf(&b, "\nFrom the capture in %s:\n\n", escape.Code(p.State))
		for _, l := range p.Live {
			fmt.Fprintf(&b, "- %s.\n", escape.Markdown(l))
		}
	}
	for _, a := range p.Assumes {
		fmt.Fprintf(&b, "\nPlanned without a capture (`--state`): %s.\n", escape.Markdown(a))
	}
	if _, err := io.WriteString(w, b.String()); err != nil || p.Diff == nil {
		return err
	}
	fmt.Fprintf(w, "\nWhat `karpgen render %s` then does:\n\n", escape.Terminal(p.To))
	return DiffMarkdown(w, p.Diff)
}
