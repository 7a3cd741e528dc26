package lint

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/karpgen/karpgen/generators"
	"github.com/karpgen/karpgen/internal/budget"
	"github.com/karpgen/karpgen/internal/profile"
)

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
