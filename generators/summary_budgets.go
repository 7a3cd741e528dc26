package generators

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/karpgen/karpgen/internal/budget"
	"github.com/karpgen/karpgen/internal/facts"
	"github.com/karpgen/karpgen/internal/model"
	"github.com/karpgen/karpgen/internal/profile"
)

// budgetsSection is SUMMARY.md's view of every pool's disruption budgets:
// for each reason and hour of the week, how many nodes Karpenter may
// disrupt at once, in the profile's time zone (and in UTC, which
// Karpenter reads, when they differ).
func budgetsSection(p *profile.Profile, m *facts.Minor) string {
	var b strings.Builder
	w := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	loc, zone := budget.ZoneOf(p.TimeZone)
	offs := budget.Offsets(loc)
	w("\n### Disruption budgets\n\n")
	w("How many of a pool's nodes Karpenter may disrupt at once, for each reason, by hour of the week. ")
	w("Where budgets overlap the tightest holds (a percentage is of the pool's nodes, rounded up); where none is in force, nothing limits it. ")
	if zone == "UTC" {
		w("Times are UTC, as Karpenter reads every schedule.\n")
	} else {
		w("Times are %s (%s), the profile's `timeZone`; `nodepools.yaml` holds the same windows in UTC, as Karpenter reads every schedule.", md(zone), offsetsText(offs))
		if len(offs) > 1 {
			w(" The zone moves its clocks, so each UTC window covers the local one under both offsets and is an hour wider than it for part of the year.")
		}
		w("\n")
	}
	w("\n![Disruptions allowed at once, by pool, reason and hour of the week](%s)\n", model.FileBudgetsSVG)
	for _, name := range slices.Sorted(maps.Keys(p.NodePools)) {
		np := p.NodePools[name]
		utc := UTCBudgets(p, np.Disruption.Budgets)
		w("\n**%s**\n", md(name))
		scheduled := slices.ContainsFunc(utc, func(b profile.Budget) bool { return b.Schedule != "" })
		if !scheduled || len(offs) == 1 {
			weekTable(w, utc, m.BudgetReasons, budget.Monday(time.January, loc), "")
		} else {
			for _, month := range []time.Month{time.January, time.July} {
				mon := budget.Monday(month, loc)
				_, off := mon.Zone()
				weekTable(w, utc, m.BudgetReasons, mon, fmt.Sprintf("In %s (%s):", month, budget.OffsetText(off)))
			}
		}
		if scheduled && zone != "UTC" {
			weekTable(w, utc, m.BudgetReasons, budget.Monday(time.January, time.UTC), "In UTC:")
		}
		if what := Unbudgeted(p, np, m.BudgetReasons); len(what) > 0 {
			drain := "Their drains still wait for PodDisruptionBudgets."
			if np.TerminationGracePeriod != "" {
				drain = fmt.Sprintf("Their drains wait for PodDisruptionBudgets at most the pool's terminationGracePeriod (%s).", md(np.TerminationGracePeriod))
			}
			w("\nBudgets do not hold back %s: Karpenter disrupts for these whatever the hour, blocked ones included. %s\n", md(JoinAnd(what)), drain)
		}
	}
	return b.String()
}

// Unbudgeted says, for a pool whose budgets block some reason at some
// hour (a limit of 0), what replaces its nodes at those hours all the
// same: Karpenter's forceful disruptions, which no budget holds back
// (expiry at expireAfter, spot interruptions read from the queue, node
// repair); nil when the budgets block nothing or none of these applies.
func Unbudgeted(p *profile.Profile, np profile.NodePool, reasons []string) []string {
	week, err := budget.Effective(UTCBudgets(p, np.Disruption.Budgets), reasons, budget.Monday(time.January, time.UTC))
	if err != nil {
		return nil
	}
	blocked := false
	for _, r := range reasons {
		blocked = blocked || slices.ContainsFunc(week.Hours[r], func(l budget.Limit) bool { return l.String() == "0" })
	}
	if !blocked {
		return nil
	}
	var what []string
	if np.ExpireAfter != "" && np.ExpireAfter != "Never" {
		what = append(what, "expiry (a node is replaced once it is "+np.ExpireAfter+" old, at whatever hour that falls)")
	}
	if p.Karpenter.InterruptionQueue && slices.Contains(np.CapacityTypes, "spot") {
		what = append(what, "spot interruptions")
	}
	if p.Karpenter.FeatureGates["nodeRepair"] {
		what = append(what, "node repair")
	}
	return what
}

// JoinAnd joins words as "a, b and c".
func JoinAnd(words []string) string {
	if len(words) < 2 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " and " + words[len(words)-1]
}
func weekTable(w func(string, ...any), budgets []profile.Budget, reasons []string, monday time.Time, title string) {
	week, err := budget.Effective(budgets, reasons, monday)
	if err != nil {
		w("\n%s\n", md(err.Error())) // vet refuses such a schedule first
		return
	}
	if title != "" {
		w("\n%s\n", title)
	}
	w("\n| reasons | days | hours | may disrupt at once |\n|---|---|---|---|\n")
	for _, r := range week.Rows() {
		w("| %s | %s | %s | %s |\n", strings.Join(r.Reasons, ", "), r.Days, r.Hours, r.Limit)
	}
}

func offsetsText(offs []int) string {
	var parts []string
	for _, o := range offs {
		parts = append(parts, budget.OffsetText(o))
	}
	return strings.Join(parts, " or ")
}
