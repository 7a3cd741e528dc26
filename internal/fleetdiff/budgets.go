package fleetdiff

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/karpgen/karpgen/internal/budget"
	"github.com/karpgen/karpgen/internal/facts/drift"
	"github.com/karpgen/karpgen/internal/model"
	"github.com/karpgen/karpgen/internal/profile"
)

// budgetsPath is the NodePool field of its disruption budgets.
const budgetsPath = "spec.disruption.budgets"

// hoursOf tells, for a change of a NodePool's budgets (as written, in
// UTC), the hours of the week whose limit moves, in the zone of env's
// profile (UTC without one) and for the reasons of its minor.
func hoursOf(c drift.Change, env *model.Env) []drift.HoursDelta {
	if c.Path != budgetsPath || env == nil || env.Facts == nil {
		return nil
	}
	loc, zone := budget.ZoneOf(env.Profile.TimeZone)
	monday := budget.Monday(time.January, loc)
	before, err1 := budget.Effective(budgetsOf(c.From), env.Facts.BudgetReasons, monday)
	after, err2 := budget.Effective(budgetsOf(c.To), env.Facts.BudgetReasons, monday)
	if err1 != nil || err2 != nil {
		return nil
	}
	var out []drift.HoursDelta
	for _, ch := range budget.Changes(before, after) {
		out = append(out, drift.HoursDelta{Reasons: ch.Reasons, Days: ch.Days, Hours: ch.Hours, Zone: zone, From: ch.From.String(), To: ch.To.String()})
	}
	return out
}

// budgetsOf reads budgets as decoded from a NodePool's YAML (nil when
// absent: a NodePool without budgets gets the CRD's default of 10%).
func budgetsOf(v any) []profile.Budget {
	if v == nil {
		return []profile.Budget{{Nodes: "10%"}}
	}
	data, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	var out []profile.Budget
	if json.Unmarshal(data, &out) != nil {
		return nil
	}
	return out
}

// pacing says in a sentence how a NodePool's budgets (as decoded from
// YAML) pace the replacement of its drifted nodes through the week, in
// the zone of env's profile: the Drifted limit of each stretch of hours,
// as Karpenter combines the budgets.
func pacing(nodePool map[string]any, env *model.Env) (string, bool) {
	if env == nil || env.Facts == nil {
		return "", false
	}
	loc, zone := budget.ZoneOf(env.Profile.TimeZone)
	week, err := budget.Effective(budgetsOf(drift.Dig(nodePool, "spec", "disruption", "budgets")), []string{"Drifted"}, budget.Monday(time.January, loc))
	if err != nil {
		return "", false
	}
	rows := week.Rows()
	if len(rows) == 1 {
		return limitText(rows[0].Limit) + ", at all hours", true
	}
	var parts []string
	for _, r := range rows {
		parts = append(parts, fmt.Sprintf("%s %s %s", limitText(r.Limit), r.Days, r.Hours))
	}
	return strings.Join(parts, "; ") + " (" + zone + ")", true
}

// limitText tells a limit of drifted nodes.
func limitText(l budget.Limit) string {
	switch s := l.String(); s {
	case "0":
		return "none"
	case "no limit":
		return "all at once"
	default:
		return "at most " + s + " of the pool's nodes at a time"
	}
}
