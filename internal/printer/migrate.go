package printer

import (
	"fmt"
	"io"
	"strings"

	"github.com/karpgen/karpgen/internal/doctor/live"
	"github.com/karpgen/karpgen/internal/plan/migrate"
	"github.com/karpgen/karpgen/internal/util/escape"
)

// Migrate prints a migration runbook as text: numbered steps, what to
// know, the commands ($) and the checks before the next step.
func Migrate(w io.Writer, r *migrate.Runbook) error {
	var b strings.Builder
	line := func(format string, args ...any) { b.WriteString(escape.Line(fmt.Sprintf(format, args...)) + "\n") }
	line("Migrate %s from Cluster Autoscaler to Karpenter: %d steps, each checked before the next.", r.Env, len(r.Steps))
	if r.State != "" {
		line("Planned from the capture in %s.", r.State)
	}
	if len(r.Assumes) > 0 {
		line("%s; it assumes:", assumesHead(r.State))
	}
	for _, a := range r.Assumes {
		line("  %s", a)
	}
	if len(r.Owners) > 0 {
		line("Changed through their owners:")
		for _, x := range r.Owners {
			line("  %s: %s", x.Resource, ownerText(x.Owner))
		}
	}
	for i, s := range r.Steps {
		line("")
		line("%d. %s", i+1, s.Title)
		for _, t := range s.Text {
			line("   %s", t)
		}
		for _, sn := range s.Snippets {
			line("   in %s:", sn.Where)
			for _, l := range strings.Split(sn.Text, "\n") {
				line("      %s", l)
			}
		}
		for _, c := range s.Commands {
			line("   $ %s", c)
		}
		for _, c := range s.Check {
			line("   check: %s", c)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// MigrateMarkdown prints a migration runbook for a change ticket: a
// section a step, its commands and checks in shell blocks.
func MigrateMarkdown(w io.Writer, r *migrate.Runbook) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# Migrate %s from Cluster Autoscaler to Karpenter\n\n%d steps, each checked before the next.\n", escape.Markdown(r.Env), len(r.Steps))
	if r.State != "" {
		fmt.Fprintf(&b, "\nPlanned from the capture in %s.\n", escape.Code(r.State))
	}
	if len(r.Assumes) > 0 {
		fmt.Fprintf(&b, "\n%s; it assumes:\n\n", assumesHead(r.State))
	}
	for _, a := range r.Assumes {
		fmt.Fprintf(&b, "- %s\n", escape.Markdown(a))
	}
	if len(r.Owners) > 0 {
		b.WriteString("\nChanged through their owners:\n\n")
		for _, x := range r.Owners {
			fmt.Fprintf(&b, "- %s: %s\n", escape.Markdown(x.Resource), escape.Markdown(ownerText(x.Owner)))
		}
	}
	for i, s := range r.Steps {
		fmt.Fprintf(&b, "\n## %d. %s\n", i+1, escape.Markdown(s.Title))
		for _, t := range s.Text {
			fmt.Fprintf(&b, "\n%s\n", t)
		}
		for _, sn := range s.Snippets {
			fence := escape.Fence(sn.Text)
			fmt.Fprintf(&b, "\nIn %s:\n\n%s%s\n%s\n%s\n", escape.Markdown(sn.Where), fence, sn.Lang, sn.Text, fence)
		}
		block(&b, "", s.Commands)
		block(&b, "Check:", s.Check)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// block writes commands as a shell code block the text cannot close.
func block(b *strings.Builder, title string, commands []string) {
	if len(commands) == 0 {
		return
	}
	if title != "" {
		fmt.Fprintf(b, "\n%s\n", title)
	}
	fence := escape.Fence(strings.Join(commands, "\n"))
	fmt.Fprintf(b, "\n%ssh\n%s\n%s\n", fence, strings.Join(commands, "\n"), fence)
}

// ownerText says who owns a resource and what says so.
func ownerText(o live.Owner) string {
	kind := map[string]string{live.OwnerTerraform: "Terraform", live.OwnerEksctl: "eksctl", live.OwnerCloudFormation: "CloudFormation",
		live.OwnerArgoCD: "Argo CD", live.OwnerHelm: "Helm", live.OwnerEKS: "EKS", live.OwnerNobody: "nobody"}[o.Kind]
	if kind == "" {
		kind = o.Kind
	}
	switch {
	case o.Name != "" && o.Logical != "":
		kind += " " + o.Name + " (" + o.Logical + ")"
	case o.Name != "":
		kind += " " + o.Name
	}
	return kind + " (" + o.Evidence + ")"
}

// assumesHead says why a runbook assumes: no capture, or a capture that
// lacks parts it reads.
func assumesHead(state string) string {
	if state == "" {
		return "Planned without a capture (--state)"
	}
	return "The capture does not hold all the runbook reads"
}
