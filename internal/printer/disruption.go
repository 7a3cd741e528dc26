package printer

import (
	"fmt"
	"io"
	"strings"

	"github.com/karpgen/karpgen/internal/facts/instancetypes"
	"github.com/karpgen/karpgen/internal/simulate"
	"github.com/karpgen/karpgen/internal/util/escape"
)

// Disruption writes what Karpenter's disruption controller would do
// with a captured cluster, for a terminal: the commands of this round,
// then every node of Karpenter's with the command that removes it or
// why it stays.
func Disruption(w io.Writer, r *simulate.DisruptionReport) error {
	return buffered(w, r, disruptionText)
}

// DisruptionMarkdown writes it as a pull-request comment.
func DisruptionMarkdown(w io.Writer, r *simulate.DisruptionReport) error {
	return buffered(w, r, disruptionMarkdown)
}

func disruptionText(w io.Writer, r *simulate.DisruptionReport) {
	fmt.Fprintf(w, "simulate %s --disruption at %s: %s of Karpenter's (and %d other), %s this round",
		r.Env, escape.Terminal(r.Now), things(len(r.Nodes), "node"), r.Others, things(len(r.Commands), "command"))
	if len(r.Commands) > 0 {
		fmt.Fprintf(w, ", saving %s", instancetypes.PerHour(r.Saved, r.Currency))
	}
	fmt.Fprintf(w, "\nprices: %s\n", escape.Terminal(r.Prices))
	for i, c := range r.Commands {
		fmt.Fprintf(w, "\ncommand %d, %s (%s): %s\n", i+1, escape.Terminal(c.Method), escape.Terminal(c.Reason), escape.Terminal(commandText(c)))
		fmt.Fprintf(w, "  removes %s, launches %s: saves %s\n", instancetypes.PerHour(c.Price, r.Currency), instancetypes.PerHour(c.Replaced, r.Currency),
			instancetypes.PerHour(c.Price-c.Replaced, r.Currency))
	}
	if len(r.Nodes) > 0 {
		fmt.Fprintln(w)
	}
	for _, v := range r.Nodes {
		fmt.Fprintf(w, "%s: %s\n", escape.Line(v.Name), escape.Terminal(nodeText(v, r.Currency)))
		if v.Command > 0 {
			fmt.Fprintf(w, "  goes: command %d\n", v.Command)
			continue
		}
		for _, why := range v.Reasons {
			fmt.Fprintf(w, "  stays, %s: %s\n", why.Kind, escape.Terminal(why.Upstream))
			if why.Fix != "" {
				fmt.Fprintf(w, "    %s\n", escape.Terminal(why.Fix))
			}
		}
	}
}

func disruptionMarkdown(w io.Writer, r *simulate.DisruptionReport) {
	fmt.Fprintf(w, "### karpgen simulate %s --disruption\n\n", escape.Code(r.Env))
	fmt.Fprintf(w, "At %s, Karpenter would start %s on %s of its own", escape.Code(r.Now), things(len(r.Commands), "command"), things(len(r.Nodes), "node"))
	if len(r.Commands) > 0 {
		fmt.Fprintf(w, ", saving %s", instancetypes.PerHour(r.Saved, r.Currency))
	}
	fmt.Fprintln(w, ".")
	if len(r.Commands) > 0 {
		fmt.Fprintf(w, "\n| Command | Method | Removes | Launches | Saves |\n|---|---|---|---|---|\n")
	}
	for i, c := range r.Commands {
		var launches []string
		for _, rep := range c.Replacements {
			launches = append(launches, fmt.Sprintf("%s %s in %s", escape.Code(rep.CapacityType), escape.Code(rep.InstanceType), escape.Code(rep.Zone)))
		}
		if len(launches) == 0 {
			launches = append(launches, "nothing")
		}
		var nodes []string
		for _, n := range c.Nodes {
			nodes = append(nodes, escape.Code(n))
		}
		fmt.Fprintf(w, "| %d | %s (%s) | %s | %s | %s |\n", i+1, escape.Markdown(c.Method), escape.Markdown(c.Reason), strings.Join(nodes, " "),
			strings.Join(launches, " "), instancetypes.PerHour(c.Price-c.Replaced, r.Currency))
	}
	if r.Kept > 0 {
		fmt.Fprintf(w, "\n| Node | Pool | Type | Why it stays |\n|---|---|---|---|\n")
	}
	for _, v := range r.Nodes {
		if v.Command > 0 {
			continue
		}
		var why []string
		for _, reason := range v.Reasons {
			s := escape.Code(reason.Kind) + ": " + escape.Markdown(reason.Upstream)
			if reason.Fix != "" {
				s += " — " + escape.Markdown(reason.Fix)
			}
			why = append(why, s)
		}
		fmt.Fprintf(w, "| %s | %s | %s %s | %s |\n", escape.Code(v.Name), escape.Code(v.NodePool), escape.Code(v.CapacityType), escape.Code(v.InstanceType), strings.Join(why, "<br>"))
	}
	fmt.Fprintf(w, "\nPrices: %s.\n", escape.Markdown(r.Prices))
}

// nodeText is a node in a few words: its pool, offering, price and
// pods.
func nodeText(v simulate.NodeVerdict, currency string) string {
	s := fmt.Sprintf("pool %s, %s %s in %s, %s, %s", v.NodePool, v.CapacityType, v.InstanceType, v.Zone, instancetypes.PerHour(v.Price, currency), things(v.Pods, "pod"))
	if v.Drifted != "" {
		s += ", drifted (" + v.Drifted + ")"
	}
	return s
}

// commandText is a command in a sentence: what it removes and what it
// launches.
func commandText(c simulate.Command) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s", c.Decision, strings.Join(c.Nodes, ", "))
	if len(c.Replacements) > 0 {
		var reps []string
		for _, r := range c.Replacements {
			reps = append(reps, fmt.Sprintf("%s %s in %s (pool %s)", r.CapacityType, r.InstanceType, r.Zone, r.NodePool))
		}
		fmt.Fprintf(&b, " with %s", strings.Join(reps, ", "))
	}
	return b.String()
}
