package printer

import (
	"encoding/json"
	"fmt"
	"html"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/karpgen/karpgen/internal/facts/drift"
	"github.com/karpgen/karpgen/internal/facts/instancetypes"
	"github.com/karpgen/karpgen/internal/fleetdiff"
	"github.com/karpgen/karpgen/internal/util/escape"
)

// MaxMarkdown is the most a pull-request comment holds (GitHub refuses
// longer ones); Markdown summarises the environments that do not fit.
const MaxMarkdown = 65536

// maxListed is how many names a summary line lists before "…".
const maxListed = 5

// headline is the summary in one line.
func headline(r *fleetdiff.Report) string {
	s := r.Summary
	parts := []string{fmt.Sprintf("%d of %d environments change", s.Changed, r.Environments)}
	var pools []string
	for _, p := range s.ReplaceNodes {
		pools = append(pools, p.Env+": "+strings.Join(p.Pools, ", "))
	}
	parts = append(parts, counted(len(s.ReplaceNodes), "replaces nodes", "replace nodes", pools, "; "))
	var accounts []string
	for _, a := range s.IAM {
		accounts = append(accounts, a.Env+": "+a.Account)
	}
	parts = append(parts, counted(len(s.IAM), "changes IAM", "change IAM", accounts, "; "))
	parts = append(parts, counted(len(s.Versions), "changes the Karpenter version", "change the Karpenter version", s.Versions, ", "))
	parts = append(parts, counted(len(s.Added), "added", "added", s.Added, ", "))
	parts = append(parts, counted(len(s.Removed), "removed", "removed", s.Removed, ", "))
	return strings.Join(parts, " · ")
}

func counted(n int, one, many string, names []string, sep string) string {
	verb := many
	if n == 1 {
		verb = one
	}
	s := fmt.Sprintf("%d %s", n, verb)
	if len(names) == 0 {
		return s
	}
	if len(names) > maxListed {
		names = append(names[:maxListed:maxListed], "…")
	}
	return s + " (" + strings.Join(names, sep) + ")"
}

// maxValue is how many characters a value shows.
const maxValue = 120

// value shows a value compactly: JSON, cut at maxValue characters;
// "(absent)" for none.
func value(v any) string {
	if v == nil {
		return "(absent)"
	}
	s := jsonText(v)
	if utf8.RuneCountInString(s) > maxValue {
		s = string([]rune(s)[:maxValue-1]) + "…"
	}
	return s
}

func jsonText(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// values shows the two sides of a change. Where a side is too long to
// show whole, both are shown from shortly before the first character
// they differ in, so that two cut values never read the same.
func values(from, to any) (string, string) {
	if from == nil || to == nil {
		return value(from), value(to)
	}
	a, b := []rune(jsonText(from)), []rune(jsonText(to))
	if len(a) <= maxValue && len(b) <= maxValue {
		return string(a), string(b)
	}
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	start := max(0, i-maxValue/4)
	return window(a, start), window(b, start)
}

// window shows s from start, cut at maxValue characters, with "…" where
// it is cut.
func window(s []rune, start int) string {
	prefix := ""
	if start > 0 {
		s, prefix = s[start:], "…"
	}
	if len(s) > maxValue {
		return prefix + string(s[:maxValue-1]) + "…"
	}
	return prefix + string(s)
}

// requirement shows what changes of one requirement key.
func requirement(d drift.RequirementDelta) string {
	op := func(s string) string {
		if s == "" {
			return "(absent)"
		}
		return s
	}
	s := d.Key + ": " + op(d.To)
	if d.From != d.To {
		s = d.Key + ": " + op(d.From) + " -> " + op(d.To)
	}
	if len(d.ValuesAdded) > 0 {
		s += "; values added: " + strings.Join(d.ValuesAdded, ", ")
	}
	if len(d.ValuesRemoved) > 0 {
		s += "; values removed: " + strings.Join(d.ValuesRemoved, ", ")
	}
	return s
}

// Diff writes a fleet diff for a terminal or a CI log.
func Diff(w io.Writer, r *fleetdiff.Report) error {
	var b strings.Builder
	line := func(format string, args ...any) { b.WriteString(escape.Line(fmt.Sprintf(format, args...)) + "\n") }
	line("%s", headline(r))
	for _, e := range r.Changes {
		b.WriteString("\n")
		line("== %s: %s (account %s, Karpenter %s)", e.Name, e.Status, e.Account, e.Version)
		for _, o := range e.Objects {
			for _, l := range ObjectLines(o) {
				line("%s", l)
			}
		}
		if len(e.IAM) > 0 {
			line("IAM (account %s):", e.Account)
			for _, p := range e.IAM {
				line("  %s (%s%s)", p.File, p.Status, trust(p))
				if p.Status != "changed" {
					continue
				}
				for _, a := range p.ActionsAdded {
					line("    + %s", a)
				}
				for _, a := range p.ActionsRemoved {
					line("    - %s", a)
				}
				for _, s := range p.Statements {
					line("    statement %s", statement(s))
					for _, r := range s.ResourcesAdded {
						line("      + %s", r)
					}
					for _, r := range s.ResourcesRemoved {
						line("      - %s", r)
					}
				}
			}
		}
		if len(e.Helm) > 0 {
			line("Helm values (the controller restarts):")
			for _, v := range e.Helm {
				line("  %s", ValueLine(v))
			}
		}
		if len(e.Workloads) > 0 {
			line("Workloads that land elsewhere (Karpenter's scheduler):")
			for _, m := range e.Workloads {
				line("  %s:%d: %s", m.File, m.Line, m.Workload)
				line("    before: %s", m.Before)
				line("    after:  %s", m.After)
			}
		}
		if c := e.Capacity; c != nil {
			line("Capacity for the workloads (Karpenter's scheduler):")
			line("  before: %s", capacityText(c.Before, c))
			line("  after:  %s%s", capacityText(c.After, c), costDelta(c))
			line("  prices: %s", c.Prices)
		}
		if d := e.Disruption; d != nil {
			line("Captured nodes (Karpenter's disruption controller, this round):")
			line("  before: %s", disruptionSide(d.Before, d.Currency))
			line("  after:  %s", disruptionSide(d.After, d.Currency))
			for _, n := range d.Nodes {
				line("  %s: %s -> %s", n.Node, n.Before, n.After)
			}
			line("  prices: %s", d.Prices)
		}
		if e.VersionFrom != "" {
			line("Karpenter %s -> %s: plan the move with `karpgen upgrade %s --to %s`", e.VersionFrom, e.Version, e.Name, e.Version)
		}
		textFiles(&b, "Files:", e.Files)
	}
	if len(r.Fleet) > 0 {
		b.WriteString("\n")
		textFiles(&b, "Files of out/ itself:", r.Fleet)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// ValueLine tells how a Helm value changes: its key, then both sides.
func ValueLine(v fleetdiff.Value) string {
	from, to := values(v.From, v.To)
	return fmt.Sprintf("%s: %s -> %s", v.Key, from, to)
}

// ObjectLines tells what changes in a NodePool or an EC2NodeClass, one
// line per change, each field's lines indented under the object's: the
// effect, the fields with their effects and why, and the pools whose
// nodes it reaches. karpgen diff and karpgen upgrade print objects
// through it.
func ObjectLines(o fleetdiff.Object) []string {
	out := []string{fmt.Sprintf("%s %s: %s", o.Kind, o.Name, o.Effect)}
	add := func(format string, args ...any) { out = append(out, fmt.Sprintf(format, args...)) }
	for _, c := range o.Changes {
		switch {
		case len(c.Requirements) > 0:
			add("  %s:", c.Path)
			for _, d := range c.Requirements {
				add("    %s", requirement(d))
			}
		case c.From == nil && c.To == nil:
			add("  %s", c.Path)
		default:
			from, to := values(c.From, c.To)
			add("  %s: %s -> %s", c.Path, from, to)
		}
		for _, h := range c.Hours {
			add("    %s", hoursLine(h))
		}
		add("    %s", why(c))
	}
	for _, p := range o.Pools {
		add("  nodes of pool %s: %s", p.Pool, p.Summary)
	}
	return out
}

func textFiles(b *strings.Builder, title string, files []fleetdiff.File) {
	if len(files) == 0 {
		return
	}
	b.WriteString(title + "\n")
	for _, f := range files {
		if f.Diff == "" {
			fmt.Fprintf(b, "  %s (%s)\n", escape.Line(f.Path), f.Status)
			continue
		}
		for _, l := range strings.SplitAfter(strings.TrimSuffix(f.Diff, "\n"), "\n") {
			b.WriteString("  " + escape.Line(strings.TrimSuffix(l, "\n")) + "\n")
		}
		if more := f.Lines - fleetdiff.MaxDiffLines; more > 0 {
			fmt.Fprintf(b, "  (%d more lines)\n", more)
		}
	}
}

func why(c drift.Change) string {
	s := string(c.Effect)
	if c.Reason != "" {
		s += ", " + c.Reason
	}
	return s + ": " + c.Why
}

func trust(p fleetdiff.Policy) string {
	if p.Trust {
		return ", trust policy"
	}
	return ""
}

func statement(s fleetdiff.Statement) string {
	if s.Status != "changed" {
		return s.Sid + " " + s.Status
	}
	return s.Sid + ": " + strings.Join(s.Fields, ", ") + " change"
}

// DiffMarkdown writes a fleet diff for a pull-request comment: the
// summary, then one collapsible section per environment, within
// MaxMarkdown characters; the environments that do not fit are counted
// at the end.
func DiffMarkdown(w io.Writer, r *fleetdiff.Report) error {
	head := "### karpgen diff against " + escape.Code(r.Base) + "\n\n" + escape.Markdown(headline(r)) + "\n"
	var sections []string
	for _, e := range r.Changes {
		sections = append(sections, markdownEnv(e))
	}
	if len(r.Fleet) > 0 {
		var b strings.Builder
		b.WriteString("\n<details><summary>Files of out/ itself</summary>\n\n")
		markdownFiles(&b, r.Fleet)
		b.WriteString("</details>\n")
		sections = append(sections, b.String())
	}
	var b strings.Builder
	b.WriteString(head)
	for i, s := range sections {
		rest := len(sections) - i
		tail := fmt.Sprintf("\n%d more sections do not fit in a comment: run `karpgen diff` to see them.\n", rest)
		if b.Len()+len(s)+len(tail)+64 > MaxMarkdown {
			b.WriteString(tail)
			break
		}
		b.WriteString(s)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func markdownEnv(e fleetdiff.Env) string {
	var b strings.Builder
	var what []string
	for _, o := range e.Objects {
		what = append(what, o.Kind+" "+o.Name+": "+o.Effect)
	}
	if len(e.IAM) > 0 {
		what = append(what, "IAM")
	}
	if len(e.Helm) > 0 {
		what = append(what, "Helm values")
	}
	if e.VersionFrom != "" {
		what = append(what, "Karpenter "+e.VersionFrom+" → "+e.Version)
	}
	if len(e.Workloads) > 0 {
		what = append(what, fmt.Sprintf("%d workloads land elsewhere", len(e.Workloads)))
	}
	if c := e.Capacity; c != nil && c.Priced {
		what = append(what, fmt.Sprintf("%s → %s", instancetypes.PerHour(c.Before.PerHour, c.Currency), instancetypes.PerHour(c.After.PerHour, c.Currency)))
	}
	if d := e.Disruption; d != nil {
		what = append(what, fmt.Sprintf("%d captured nodes change fate", len(d.Nodes)))
	}
	if len(what) == 0 && len(e.Files) > 0 {
		what = append(what, "files")
	}
	fmt.Fprintf(&b, "\n<details><summary><b>%s</b> (%s): %s</summary>\n\n", html.EscapeString(escape.Terminal(e.Name)), e.Status,
		html.EscapeString(escape.Terminal(strings.Join(what, " · "))))
	fmt.Fprintf(&b, "Account %s, Karpenter %s.\n", escape.Code(e.Account), escape.Code(e.Version))
	if len(e.Objects) > 0 {
		b.WriteString("\n| Object | Field | From | To | Effect |\n|---|---|---|---|---|\n")
		for _, o := range e.Objects {
			obj := o.Kind + " " + escape.Code(o.Name)
			if len(o.Changes) == 0 {
				fmt.Fprintf(&b, "| %s | | | | %s |\n", obj, o.Effect)
			}
			for _, c := range o.Changes {
				if len(c.Requirements) > 0 {
					for _, d := range c.Requirements {
						fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n", obj, escape.Code(c.Path+" "+d.Key), markdownOp(d.From), markdownReq(d), escape.Markdown(why(c)))
					}
					continue
				}
				from, to := values(c.From, c.To)
				fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n", obj, escape.Code(c.Path), escape.Code(from), escape.Code(to), escape.Markdown(why(c)))
				for _, h := range c.Hours {
					fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n", obj, escape.Markdown(hoursWhere(h)), escape.Code(h.From), escape.Code(h.To), "disruptions allowed at once")
				}
			}
		}
		for _, o := range e.Objects {
			for _, p := range o.Pools {
				fmt.Fprintf(&b, "\nNodes of pool %s (%s %s): %s.\n", escape.Code(p.Pool), o.Kind, escape.Code(o.Name), escape.Markdown(p.Summary))
			}
		}
	}
	if len(e.Workloads) > 0 {
		b.WriteString("\n**Workloads that land elsewhere** (Karpenter's scheduler):\n\n| Workload | Before | After |\n|---|---|---|\n")
		for _, m := range e.Workloads {
			fmt.Fprintf(&b, "| %s (%s) | %s | %s |\n", escape.Markdown(m.Workload), escape.Code(fmt.Sprintf("%s:%d", m.File, m.Line)), escape.Markdown(m.Before), escape.Markdown(m.After))
		}
	}
	if c := e.Capacity; c != nil {
		b.WriteString("\n**Capacity for the workloads** (Karpenter's scheduler):\n\n| | Nodes | Instance mix | Pending | Per hour |\n|---|---|---|---|---|\n")
		for _, side := range []struct {
			name string
			c    fleetdiff.Capacity
		}{{"before", c.Before}, {"after", c.After}} {
			price := "—"
			if c.Priced {
				price = instancetypes.PerHour(side.c.PerHour, c.Currency)
			}
			fmt.Fprintf(&b, "| %s | %d | %s | %d | %s |\n", side.name, side.c.Nodes, escape.Markdown(side.c.Mix), side.c.Pending, price)
		}
		fmt.Fprintf(&b, "\nPrices: %s.\n", escape.Markdown(c.Prices))
	}
	if d := e.Disruption; d != nil {
		b.WriteString("\n**Captured nodes** (Karpenter's disruption controller, this round):\n\n| Node | Before | After |\n|---|---|---|\n")
		fmt.Fprintf(&b, "| all | %s | %s |\n", escape.Markdown(disruptionSide(d.Before, d.Currency)), escape.Markdown(disruptionSide(d.After, d.Currency)))
		for _, n := range d.Nodes {
			fmt.Fprintf(&b, "| %s | %s | %s |\n", escape.Code(n.Node), escape.Markdown(n.Before), escape.Markdown(n.After))
		}
		fmt.Fprintf(&b, "\nPrices: %s.\n", escape.Markdown(d.Prices))
	}
	if len(e.IAM) > 0 {
		fmt.Fprintf(&b, "\n**IAM** (account %s):\n\n", escape.Code(e.Account))
		for _, p := range e.IAM {
			fmt.Fprintf(&b, "- %s (%s%s)", escape.Code(p.File), p.Status, trust(p))
			if p.Status != "changed" {
				b.WriteString("\n")
				continue
			}
			var items []string
			for _, a := range p.ActionsAdded {
				items = append(items, "+ "+escape.Code(a))
			}
			for _, a := range p.ActionsRemoved {
				items = append(items, "− "+escape.Code(a))
			}
			for _, s := range p.Statements {
				item := "statement " + escape.Markdown(statement(s))
				for _, r := range s.ResourcesAdded {
					item += " + " + escape.Code(r)
				}
				for _, r := range s.ResourcesRemoved {
					item += " − " + escape.Code(r)
				}
				items = append(items, item)
			}
			if len(items) > 0 {
				b.WriteString(": " + strings.Join(items, "; "))
			}
			b.WriteString("\n")
		}
	}
	if len(e.Helm) > 0 {
		b.WriteString("\n**Helm values** (the controller restarts):\n\n| Key | From | To |\n|---|---|---|\n")
		for _, v := range e.Helm {
			from, to := values(v.From, v.To)
			fmt.Fprintf(&b, "| %s | %s | %s |\n", escape.Code(v.Key), escape.Code(from), escape.Code(to))
		}
	}
	if e.VersionFrom != "" {
		fmt.Fprintf(&b, "\n**Karpenter** %s → %s: plan the move with %s.\n", escape.Code(e.VersionFrom), escape.Code(e.Version),
			escape.Code("karpgen upgrade "+e.Name+" --to "+e.Version))
	}
	if len(e.Files) > 0 {
		b.WriteString("\n**Files**\n\n")
		markdownFiles(&b, e.Files)
	}
	b.WriteString("\n</details>\n")
	return b.String()
}

// markdownOp is a requirement's operator in a table cell.
func markdownOp(op string) string {
	if op == "" {
		return "(absent)"
	}
	return escape.Code(op)
}

// markdownReq is the new side of a requirement key: its operator and the
// values it gains and loses.
func markdownReq(d drift.RequirementDelta) string {
	s := markdownOp(d.To)
	if len(d.ValuesAdded) > 0 {
		s += " + " + escape.Code(strings.Join(d.ValuesAdded, ", "))
	}
	if len(d.ValuesRemoved) > 0 {
		s += " − " + escape.Code(strings.Join(d.ValuesRemoved, ", "))
	}
	return s
}

func markdownFiles(b *strings.Builder, files []fleetdiff.File) {
	for _, f := range files {
		if f.Diff == "" {
			fmt.Fprintf(b, "- %s (%s)\n", escape.Code(f.Path), f.Status)
			continue
		}
		text := f.Diff
		if more := f.Lines - fleetdiff.MaxDiffLines; more > 0 {
			text += fmt.Sprintf("… %d more lines\n", more)
		}
		fence := escape.Fence(text)
		fmt.Fprintf(b, "%sdiff\n%s%s\n", fence, text, fence)
	}
}

// hoursLine tells a stretch of the week whose disruption limit moves:
// "Drifted, Mon–Fri 09:00–19:00 Asia/Seoul: 10% -> 0".
func hoursLine(h drift.HoursDelta) string {
	return fmt.Sprintf("%s: %s -> %s", hoursWhere(h), h.From, h.To)
}

func hoursWhere(h drift.HoursDelta) string {
	return fmt.Sprintf("%s, %s %s %s", strings.Join(h.Reasons, ", "), h.Days, h.Hours, escape.Terminal(h.Zone))
}

// capacityText writes one side's capacity: "3 nodes (2 c5.xlarge spot,
// 1 m5.large on-demand), $0.5120/h, 0 Pending".
func capacityText(c fleetdiff.Capacity, change *fleetdiff.CapacityChange) string {
	s := fmt.Sprintf("%d nodes", c.Nodes)
	if c.Nodes == 1 {
		s = "1 node"
	}
	if c.Mix != "" {
		s += " (" + c.Mix + ")"
	}
	if change.Priced {
		s += ", " + instancetypes.PerHour(c.PerHour, change.Currency)
	}
	return s + fmt.Sprintf(", %d Pending", c.Pending)
}

// costDelta is the change of the hourly price, when priced.
func costDelta(c *fleetdiff.CapacityChange) string {
	if !c.Priced {
		return ""
	}
	d := c.After.PerHour - c.Before.PerHour
	sign := "+"
	if d < 0 {
		sign, d = "-", -d
	}
	return " (" + sign + instancetypes.PerHour(d, c.Currency) + ")"
}

// disruptionSide is one side of a disruption change in a line: "1 node
// goes now, saving $0.19/h; 2 would go alone later; 0 drifted".
func disruptionSide(s fleetdiff.DisruptionSide, currency string) string {
	goes := fmt.Sprintf("%d nodes go", s.Now)
	if s.Now == 1 {
		goes = "1 node goes"
	}
	return fmt.Sprintf("%s now, saving %s; %d alone in a later round; %d drifted", goes, instancetypes.PerHour(s.Saved, currency), s.Later, s.Drifted)
}
