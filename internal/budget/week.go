package budget

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
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

// Week is a pool's limit for each disruption reason in each minute of
// one week from Start, a Monday 00:00: Minutes[reason][m] for the minute
// m minutes after Start. Hours[reason][h] is the tightest limit of any
// minute of the hour h, for views an hour wide (the chart, counts of
// hours).
type Week struct {
	Start   time.Time
	Reasons []string
	Minutes map[string][]Limit
	Hours   map[string][]Limit
}

const (
	hoursOfWeek   = 7 * 24
	minutesOfWeek = hoursOfWeek * 60
)

// Effective computes the week from Monday 00:00 of start's zone for the
// budgets as Karpenter gets them (schedules in UTC), as Karpenter's
// Budget.IsActive judges each moment: a budget with a schedule is in
// force at t when the schedule's next hit after t minus the duration is
// not after t, so from each hit until the duration has passed, and at
// every moment when the schedule never comes (robfig/cron's Next gives
// the zero time, which is not after any moment); one without a schedule
// at all times, one without reasons for every reason. Budgets in force
// together allow the least of them, and when none is in force nothing
// limits disruption.
func Effective(budgets []profile.Budget, reasons []string, start time.Time) (Week, error) {
	key := weekKey(budgets, reasons, start)
	if w, ok := weeks.get(key); ok {
		return w, nil
	}
	w, err := effective(budgets, reasons, start)
	if err == nil {
		weeks.put(key, w)
	}
	return w, err
}

// weeks keeps the weeks worked out last: a render asks for a pool's week
// for its summary, its chart and its rules, and the environments of a
// fleet share their budgets. A Week is only read, so one is shared.
var weeks = &weekCache{m: map[string]Week{}}

// weekCache is a small map, emptied when full.
type weekCache struct {
	mu sync.Mutex
	m  map[string]Week
}

const weekCacheSize = 64

func (c *weekCache) get(key string) (Week, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	w, ok := c.m[key]
	return w, ok
}

func (c *weekCache) put(key string, w Week) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.m) >= weekCacheSize {
		clear(c.m)
	}
	c.m[key] = w
}

// weekKey is what a week depends on, as text.
func weekKey(budgets []profile.Budget, reasons []string, start time.Time) string {
	var b strings.Builder
	b.WriteString(start.Format(time.RFC3339Nano))
	b.WriteString(start.Location().String())
	for _, r := range reasons {
		b.WriteString("\x00" + r)
	}
	for _, bu := range budgets {
		b.WriteString("\x01" + bu.Nodes + "\x02" + bu.Schedule + "\x02" + bu.Duration)
		for _, r := range bu.Reasons {
			b.WriteString("\x02" + r)
		}
	}
	return b.String()
}

func effective(budgets []profile.Budget, reasons []string, start time.Time) (Week, error) {
	w := Week{Start: start, Reasons: reasons, Minutes: map[string][]Limit{}, Hours: map[string][]Limit{}}
	end := start.Add(minutesOfWeek * time.Minute)
	inForce := make([][]bool, len(budgets))
	for i, b := range budgets {
		inForce[i] = make([]bool, minutesOfWeek)
		if err := markInForce(b, start, end, inForce[i]); err != nil {
			return Week{}, err
		}
	}
	// Reasons the same budgets apply to have the same week: it is worked
	// out once and shared (a Week is only read).
	first := map[string]string{}
	for _, r := range reasons {
		var key []byte
		for i, b := range budgets {
			if len(b.Reasons) == 0 || slices.Contains(b.Reasons, r) {
				key = strconv.AppendInt(append(key, ','), int64(i), 10)
			}
		}
		if same, ok := first[string(key)]; ok {
			w.Minutes[r], w.Hours[r] = w.Minutes[same], w.Hours[same]
			continue
		}
		first[string(key)] = r
		minutes := slices.Repeat([]Limit{Unlimited}, minutesOfWeek)
		for i, b := range budgets {
			if len(b.Reasons) > 0 && !slices.Contains(b.Reasons, r) {
				continue
			}
			l := limitOf(b.Nodes)
			for m, on := range inForce[i] {
				if on {
					minutes[m] = minutes[m].tighter(l)
				}
			}
		}
		hours := slices.Repeat([]Limit{Unlimited}, hoursOfWeek)
		for m, l := range minutes {
			hours[m/60] = hours[m/60].tighter(l)
		}
		w.Minutes[r], w.Hours[r] = minutes, hours
	}
	return w, nil
}

// markInForce sets the minutes of [start, end) in which b is in force.
// A minute is judged at its first instant; hits and durations are whole
// minutes.
func markInForce(b profile.Budget, start, end time.Time, inForce []bool) error {
	if b.Schedule == "" {
		for m := range inForce {
			inForce[m] = true
		}
		return nil
	}
	sched, err := cron.ParseStandard("TZ=UTC " + b.Schedule)
	if err != nil {
		return fmt.Errorf("schedule %q: %v", b.Schedule, err)
	}
	d, err := time.ParseDuration(b.Duration)
	if err != nil {
		return fmt.Errorf("duration %q: %v", b.Duration, err)
	}
	first := sched.Next(start.Add(-d))
	if first.IsZero() {
		// Never comes: IsActive's !next.After(now) holds at every moment.
		for m := range inForce {
			inForce[m] = true
		}
		return nil
	}
	for hit := first; !hit.IsZero() && hit.Before(end); hit = sched.Next(hit) {
		from := max(0, int(hit.Sub(start)/time.Minute))
		to := min(minutesOfWeek, int(hit.Add(d).Sub(start)/time.Minute))
		for m := from; m < to; m++ {
			inForce[m] = true
		}
	}
	return nil
}

// NeverComes reports a schedule robfig/cron never finds a time for (the
// 30th of February): Karpenter holds such a budget in force always.
func NeverComes(schedule string) bool {
	sched, err := cron.ParseStandard("TZ=UTC " + schedule)
	return err == nil && sched.Next(time.Date(ReferenceYear, 1, 1, 0, 0, 0, 0, time.UTC)).IsZero()
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
	for _, r := range rows(w.Reasons, w.Minutes) {
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
		ps := make([]pair, len(after.Minutes[r]))
		for m := range ps {
			from := Unlimited
			if b := before.Minutes[r]; b != nil {
				from = b[m]
			}
			ps[m] = pair{from, after.Minutes[r][m]}
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

// rows groups reasons with the same week, then days with the same
// minutes, then the times of each value.
func rows[T comparable](reasons []string, minutes map[string][]T) []row[T] {
	const perDay = 24 * 60
	var out []row[T]
	for _, group := range groups(reasons, minutes) {
		r := group[0]
		var seen []int
		for d := range 7 {
			if slices.Contains(seen, d) {
				continue
			}
			day := minutes[r][d*perDay : d*perDay+perDay]
			var same []int
			for o := d; o < 7; o++ {
				if slices.Equal(minutes[r][o*perDay:o*perDay+perDay], day) {
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

// hoursText gives the minutes of a day with limit l as "08:00–18:00"
// (or "08:30–18:30": a zone half an hour off UTC keeps its minutes).
func hoursText[T comparable](day []T, l T) string {
	var ms []int
	for m, x := range day {
		if x == l {
			ms = append(ms, m)
		}
	}
	if len(ms) == len(day) {
		return "all day"
	}
	var parts []string
	for i := 0; i < len(ms); {
		j := i
		for j+1 < len(ms) && ms[j+1] == ms[j]+1 {
			j++
		}
		parts = append(parts, fmt.Sprintf("%02d:%02d–%02d:%02d", ms[i]/60, ms[i]%60, (ms[j]+1)/60, (ms[j]+1)%60))
		i = j + 1
	}
	return strings.Join(parts, ", ")
}
