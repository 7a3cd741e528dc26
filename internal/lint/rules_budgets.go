package lint

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/karpgen/karpgen/generators"
	"github.com/karpgen/karpgen/internal/budget"
	"github.com/karpgen/karpgen/internal/diag"
	"github.com/karpgen/karpgen/internal/facts"
	"github.com/karpgen/karpgen/internal/profile"
)

// budgetRules read a pool's budgets as Karpenter combines them
// (internal/budget): the tightest in force holds, and a pool that lists
// budgets gets no default.
var budgetRules = []*Rule{
	{
		ID: "ops/budget-without-effect", Severity: diag.Warning, Group: "Operations",
		Summary: "Every scheduled budget can take effect: no budget in force at all hours is already as tight for its reasons.",
		Hint:    "a scheduled budget can only tighten what holds at all hours: to allow more in a window, make the budget without a schedule the looser one and schedule the tight one for the hours outside the window",
		check: func(c *Context) {
			for p, np := range c.pools() {
				budgets := np.Disruption.Budgets
				for i, b := range budgets {
					if b.Schedule == "" || !validCron(b.Schedule) || budget.NeverComes(b.Schedule) {
						continue // a schedule that never comes is ops/budget-never-comes
					}
					base := at("nodePools", field(p), "disruption", "budgets", i)
					for j, u := range budgets {
						if u.Schedule == "" && covers(u.Reasons, b.Reasons) && atLeastAsTight(u.Nodes, b.Nodes) {
							c.Report(base, "", "budget %d of pool %q (%s during %q) never takes effect: budget %d (%s, at all hours%s) is at least as tight, and Karpenter holds the tightest budget in force",
								i, p, b.Nodes, b.Schedule, j, u.Nodes, reasonsText(u.Reasons))
							break
						}
					}
				}
			}
		},
	},
	{
		ID: "ops/budget-never-comes", Severity: diag.Error, Group: "Operations",
		Summary: "A budget's schedule comes: Karpenter holds a budget whose schedule never comes (the 30th of February) in force at every moment, so its limit holds for good.",
		Hint:    "give a day and month that exist, or drop the schedule and its duration if the limit is meant for all hours",
		check: func(c *Context) {
			for p, np := range c.pools() {
				for i, b := range np.Disruption.Budgets {
					if b.Schedule == "" || !validCron(b.Schedule) || !budget.NeverComes(b.Schedule) {
						continue
					}
					c.Report(at("nodePools", field(p), "disruption", "budgets", i, "schedule"), "",
						"budget schedule %q of pool %q never comes, and Karpenter then holds the budget (%s%s) in force at every hour, not never",
						b.Schedule, p, b.Nodes, reasonsText(b.Reasons))
				}
			}
		},
	},
	{
		ID: "ops/budget-unlimited", Severity: diag.Warning, Group: "Operations",
		Summary: "A pool that lists budgets limits every disruption reason at every hour: Karpenter adds its default of 10% only to a pool that lists none.",
		Hint:    `add {nodes: "10%"} (or the limit you mean) to the pool's budgets, for the hours and reasons no other budget covers`,
		check: func(c *Context) {
			if c.Minor == nil {
				return
			}
			for p, np := range c.pools() {
				week, ok := budgetWeek(c, np)
				if !ok {
					continue
				}
				var free []string
				for _, r := range week.Reasons {
					switch n := unlimitedHours(week.Hours[r]); {
					case n == len(week.Hours[r]):
						free = append(free, r+" (at all hours)")
					case n > 0:
						free = append(free, fmt.Sprintf("%s (%d of the week's 168 hours)", r, n))
					}
				}
				if len(free) > 0 {
					c.Report(at("nodePools", field(p), "disruption", "budgets"), "",
						"pool %q lists budgets, so Karpenter adds no default: nothing limits how many of its nodes it disrupts at once for %s", p, strings.Join(free, ", "))
				}
			}
		},
	},
	{
		ID: "ops/budget-forceful", Severity: diag.Note, Group: "Operations",
		Summary: "A pool whose budgets block disruption at some hours still has its nodes replaced at those hours by what no budget holds back: expiry (expireAfter is forceful in v1), spot interruptions and node repair.",
		check: func(c *Context) {
			if c.Minor == nil || !slices.Contains(c.Minor.BudgetReasons, "Drifted") {
				return
			}
			for p, np := range c.pools() {
				if _, ok := budgetWeek(c, np); !ok {
					continue // the zone or a schedule is refused by its own rule
				}
				what := generators.Unbudgeted(c.P, np, c.Minor.BudgetReasons)
				if len(what) == 0 {
					continue
				}
				hint := "budgets cannot hold these back; drains still wait for PodDisruptionBudgets unless terminationGracePeriod is set"
				if np.ExpireAfter != "" && np.ExpireAfter != "Never" {
					hint = "expireAfter: \"Never\" keeps expiry out of the blocked hours (nodes are then replaced by drift and consolidation only); " + hint
				}
				c.Report(at("nodePools", field(p), "disruption", "budgets"), hint,
					"pool %q's budgets block disruption at some hours, but at those hours its nodes are still replaced by %s", p, generators.JoinAnd(what))
			}
		},
	},
	{
		ID: "ops/budget-drift-never", Severity: diag.Warning, Group: "Operations",
		Summary: "A pool whose node class follows a moving AMI alias (@latest) lets drift replace its nodes in some hour of the week.",
		Hint:    `open a window for Drifted, e.g. {nodes: "0", reasons: ["Drifted"], schedule: "0 9 * * mon-fri", duration: "10h"} with timeZone set holds drift back only in working hours; or pin the alias and roll it forward on purpose`,
		check: func(c *Context) {
			if c.Minor == nil || !slices.Contains(c.Minor.BudgetReasons, "Drifted") {
				return
			}
			for p, np := range c.pools() {
				alias := c.P.NodeClasses[np.NodeClass].AMI.Alias
				if !strings.HasSuffix(alias, "@latest") {
					continue
				}
				week, ok := budgetWeek(c, np)
				if !ok || slices.ContainsFunc(week.Hours["Drifted"], func(l budget.Limit) bool { return l.String() != "0" }) {
					continue
				}
				c.Report(at("nodePools", field(p), "disruption", "budgets"), "",
					"no hour of the week lets drift replace pool %q's nodes, while its node class %q follows AMI alias %q: each AMI release drifts its nodes, which keep the AMI they launched with until they expire (%s)",
					p, np.NodeClass, alias, np.ExpireAfter)
			}
		},
	},
	{
		ID: "ops/budget-time-zone", Severity: diag.Warning, Group: "Operations",
		Summary: "A budget window that opens in the morning on some weekdays, in a profile without timeZone for a region far from UTC, is written in UTC on purpose.",
		check: func(c *Context) {
			tz, known := facts.RegionTimeZones[c.P.Cluster.Region]
			if c.P.TimeZone != "" || !known {
				return
			}
			loc, err := budget.Zone(tz)
			if err != nil {
				return
			}
			offs := budget.Offsets(loc)
			if off := offs[len(offs)-1]; off < 3*3600 && offs[0] > -3*3600 {
				return
			}
			_, off := time.Date(budget.ReferenceYear, 1, 15, 12, 0, 0, 0, loc).Zone()
			for p, np := range c.pools() {
				for i, b := range np.Disruption.Budgets {
					hours, everyDay, err := budget.Starts(b.Schedule)
					if b.Schedule == "" || err != nil || everyDay || len(hours) != 1 || hours[0] < 6 || hours[0] > 10 {
						continue
					}
					local := ((hours[0]*3600+off)%86400 + 86400) % 86400 / 3600
					c.Report(at("nodePools", field(p), "disruption", "budgets", i, "schedule"),
						fmt.Sprintf("set timeZone: %q to write schedules in local time (karpgen writes the UTC ones); a window meant in UTC says so with timeZone: \"UTC\"", tz),
						"budget schedule %q of pool %q reads as working hours, but Karpenter reads it in UTC: in %s, the zone of %s, the window opens at %02d:00", b.Schedule, p, tz, c.P.Cluster.Region, local)
				}
			}
		},
	},
}

// budgetWeek is the pool's week as Karpenter gets its budgets, when every
// schedule is one Karpenter and karpgen can read.
func budgetWeek(c *Context, np profile.NodePool) (budget.Week, bool) {
	loc := time.UTC
	if c.P.TimeZone != "" {
		var err error
		if loc, err = budget.Zone(c.P.TimeZone); err != nil {
			return budget.Week{}, false // value/time-zone speaks of it
		}
	}
	for _, b := range np.Disruption.Budgets {
		if b.Schedule != "" && !validCron(b.Schedule) {
			return budget.Week{}, false
		}
		if d, err := time.ParseDuration(b.Duration); b.Schedule != "" && (err != nil || d < time.Minute || d%time.Minute != 0) {
			return budget.Week{}, false // the schema (#Budget.duration) speaks of it
		}
		if _, err := budget.ToUTC(b, loc); err != nil {
			return budget.Week{}, false
		}
	}
	week, err := budget.Effective(generators.UTCBudgets(c.P, np.Disruption.Budgets), c.Minor.BudgetReasons, budget.Monday(time.January, time.UTC))
	return week, err == nil
}

func unlimitedHours(ls []budget.Limit) int {
	n := 0
	for _, l := range ls {
		if l == budget.Unlimited {
			n++
		}
	}
	return n
}

// covers says whether a budget of reasons outer applies to every reason
// of one of reasons inner (no reasons: every reason).
func covers(outer, inner []string) bool {
	if len(outer) == 0 {
		return true
	}
	if len(inner) == 0 {
		return false
	}
	for _, r := range inner {
		if !slices.Contains(outer, r) {
			return false
		}
	}
	return true
}

// atLeastAsTight says whether nodes a allows no more than nodes b for any
// pool size: both percentages or both counts, a no larger, or a zero.
func atLeastAsTight(a, b string) bool {
	pa, aPct := strings.CutSuffix(a, "%")
	pb, bPct := strings.CutSuffix(b, "%")
	na, errA := parseUint(pa)
	nb, errB := parseUint(pb)
	if errA != nil || errB != nil {
		return false
	}
	return na == 0 || aPct == bPct && na <= nb
}

func parseUint(s string) (int, error) {
	var n int
	_, err := fmt.Sscanf(s, "%d", &n)
	if err != nil || n < 0 || fmt.Sprint(n) != s {
		return 0, fmt.Errorf("not a count: %q", s)
	}
	return n, nil
}

func reasonsText(reasons []string) string {
	if len(reasons) == 0 {
		return ""
	}
	return ", for " + strings.Join(reasons, ", ")
}
