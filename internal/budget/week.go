package budget

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/robfig/cron/v3"

	"github.com/karpgen/karpgen/internal/profile"
)

// Limit is how many nodes may be disrupted at once: the smallest
// percentage and the smallest count among the budgets in force. Karpenter
// takes the smaller of the two once it knows the pool's node count
// (rounding a percentage up); -1 means no budget of that kind is in
// force, and both -1 means nothing limits disruption.
type Limit struct{ Percent, Count int }

// Unlimited is the limit when no budget is in force.
var Unlimited = Limit{-1, -1}

func (l Limit) String() string {
	switch {
	case l.Percent == 0 || l.Count == 0:
		return "0"
	case l.Percent < 0 && l.Count < 0:
		return "no limit"
	case l.Count < 0:
		return strconv.Itoa(l.Percent) + "%"
	case l.Percent < 0:
		return strconv.Itoa(l.Count)
	}
	return fmt.Sprintf("%d%% or %d, the fewer", l.Percent, l.Count)
}

// tighter is the limit of both in force at once.
func (l Limit) tighter(o Limit) Limit {
	return Limit{smaller(l.Percent, o.Percent), smaller(l.Count, o.Count)}
}

func smaller(a, b int) int {
	if a < 0 || (b >= 0 && b < a) {
		return b
	}
	return a
}

func limitOf(nodes string) Limit {
	if p, ok := strings.CutSuffix(nodes, "%"); ok {
		n, _ := strconv.Atoi(p)
		return Limit{n, -1}
	}
	n, _ := strconv.Atoi(nodes)
	return Limit{-1, n}
}

// Week is a pool's limit for each disruption reason in each hour of one
// week: Hours[reason][h] for the hour h hours after Start, a Monday 00:00.
// An hour's limit is the tightest in force at any minute of it.
type Week struct {
	Start   time.Time
	Reasons []string
	Hours   map[string][]Limit
}

// Effective computes the week from Monday 00:00 of start's zone for the
// budgets as Karpenter gets them (schedules in UTC): a budget with a
// schedule is in force while a hit of its schedule lies within its
// duration before the moment, one without at all times, one without
// reasons for every reason; budgets in force together allow the least of
// them, and when none is in force nothing limits disruption.
func Effective(budgets []profile.Budget, reasons []string, start time.Time) (Week, error) {
	const hoursOfWeek = 7 * 24
	const minutes = hoursOfWeek * 60
	w := Week{Start: start, Reasons: reasons, Hours: map[string][]Limit{}}
	for _, r := range reasons {
		w.Hours[r] = slices.Repeat([]Limit{Unlimited}, hoursOfWeek)
	}
	end := start.Add(minutes * time.Minute)
	var inHour [hoursOfWeek]bool
	for _, b := range budgets {
		// The hours in which the budget is in force at some minute: an
		// hour's limit is the tightest of any of its minutes.
		inHour = [hoursOfWeek]bool{}
		if b.Schedule == "" {
			for h := range inHour {
				inHour[h] = true
			}
		} else {
			sched, err := cron.ParseStandard("TZ=UTC " + b.Schedule)
			if err != nil {
				return Week{}, fmt.Errorf("schedule %q: %v", b.Schedule, err)
			}
			d, err := time.ParseDuration(b.Duration)
			if err != nil {
				return Week{}, fmt.Errorf("duration %q: %v", b.Duration, err)
			}
			// Next gives the zero time for a schedule that never comes
			// ("0 0 30 2 *").
			for hit := sched.Next(start.Add(-d - time.Second)); !hit.IsZero() && hit.Before(end); hit = sched.Next(hit) {
				// In force from the hit to the hit plus the duration, the
				// end's instant itself (which Karpenter counts) aside:
				// each minute is judged at its middle.
				from := max(0, int(hit.Sub(start)/time.Minute))
				to := min(minutes-1, int(hit.Add(d).Sub(start)/time.Minute)-1)
				for h := from / 60; to >= from && h <= to/60; h++ {
					inHour[h] = true
				}
			}
		}
		l := limitOf(b.Nodes)
		for _, r := range reasons {
			if len(b.Reasons) > 0 && !slices.Contains(b.Reasons, r) {
				continue
			}
			hours := w.Hours[r]
			for h, on := range inHour {
				if on {
					hours[h] = hours[h].tighter(l)
				}
			}
		}
	}
	return w, nil
}

// Monday is 00:00 of the Monday of the reference year's week holding day
// (January and July tell a zone's two offsets apart), in loc.
func Monday(month time.Month, loc *time.Location) time.Time {
	d := time.Date(ReferenceYear, month, 1, 0, 0, 0, 0, loc)
	for d.Weekday() != time.Monday {
		d = d.AddDate(0, 0, 1)
	}
	return d
}

// Row is one line of a week's table: the reasons, the days and the hours
// of those days that share one limit.
type Row struct {
	Reasons []string
	Days    string
	Hours   string
	Limit   Limit
}

var weekdays = []string{"Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"}

// Rows sums the week up: reasons with the same week together, then days
// with the same hours together, then the hours of each limit.
func (w Week) Rows() []Row {
	var out []Row
	for _, r := range rows(w.Reasons, w.Hours) {
		out = append(out, Row{Reasons: r.reasons, Days: r.days, Hours: r.hours, Limit: r.value})
	}
	return out
}

// Change is a stretch of hours whose limit a change of budgets moves.
type Change struct {
	Reasons  []string
	Days     string
	Hours    string
	From, To Limit
}

// Changes lists the hours of the week whose limit differs from before
// to after (weeks from the same Monday, of the same reasons), summed up
// as Rows are.
func Changes(before, after Week) []Change {
	type pair struct{ from, to Limit }
	hours := map[string][]pair{}
	for _, r := range after.Reasons {
		ps := make([]pair, len(after.Hours[r]))
		for h := range ps {
			from := Unlimited
			if b := before.Hours[r]; b != nil {
				from = b[h]
			}
			ps[h] = pair{from, after.Hours[r][h]}
		}
		hours[r] = ps
	}
	var out []Change
	for _, r := range rows(after.Reasons, hours) {
		if r.value.from != r.value.to {
			out = append(out, Change{Reasons: r.reasons, Days: r.days, Hours: r.hours, From: r.value.from, To: r.value.to})
		}
	}
	return out
}

type row[T comparable] struct {
	reasons     []string
	days, hours string
	value       T
}

// ReasonGroups are the week's reasons, those with the same hours
// together, in the order of Reasons.
func (w Week) ReasonGroups() [][]string { return groups(w.Reasons, w.Hours) }

// groups puts reasons with equal hours together, in the order given.
func groups[T comparable](reasons []string, hours map[string][]T) [][]string {
	var out [][]string
	for _, r := range reasons {
		i := slices.IndexFunc(out, func(g []string) bool { return slices.Equal(hours[g[0]], hours[r]) })
		if i < 0 {
			out = append(out, []string{r})
		} else {
			out[i] = append(out[i], r)
		}
	}
	return out
}

// rows groups reasons with the same week, then days with the same hours,
// then the hours of each value.
func rows[T comparable](reasons []string, hours map[string][]T) []row[T] {
	var out []row[T]
	for _, group := range groups(reasons, hours) {
		r := group[0]
		var seen []int
		for d := range 7 {
			if slices.Contains(seen, d) {
				continue
			}
			day := hours[r][d*24 : d*24+24]
			var same []int
			for o := d; o < 7; o++ {
				if slices.Equal(hours[r][o*24:o*24+24], day) {
					same = append(same, o)
				}
			}
			seen = append(seen, same...)
			for _, v := range distinct(day) {
				out = append(out, row[T]{reasons: group, days: daysText(same), hours: hoursText(day, v), value: v})
			}
		}
	}
	return out
}

func distinct[T comparable](ls []T) []T {
	var out []T
	for _, l := range ls {
		if !slices.Contains(out, l) {
			out = append(out, l)
		}
	}
	return out
}

// daysText names weekdays (0 = Monday) as "Mon–Fri", "Sat, Sun" or
// "every day".
func daysText(days []int) string {
	if len(days) == 7 {
		return "every day"
	}
	return strings.NewReplacer(",", ", ", "-", "–").Replace(runs(days, func(d int) string { return weekdays[d] }))
}

// hoursText gives the hours of a day with limit l as "08:00–18:00".
func hoursText[T comparable](day []T, l T) string {
	var hs []int
	for h, x := range day {
		if x == l {
			hs = append(hs, h)
		}
	}
	if len(hs) == 24 {
		return "all day"
	}
	var parts []string
	for i := 0; i < len(hs); {
		j := i
		for j+1 < len(hs) && hs[j+1] == hs[j]+1 {
			j++
		}
		parts = append(parts, fmt.Sprintf("%02d:00–%02d:00", hs[i], hs[j]+1))
		i = j + 1
	}
	return strings.Join(parts, ", ")
}
