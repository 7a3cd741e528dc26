package budget

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// fields is a five-field cron schedule with its hours and weekdays
// expanded; day of month and month are kept as written ("*" for any).
type fields struct {
	minute     string
	hours      []int
	dom, month string
	days       []int // 0 = Sunday
	allDays    bool
}

// The macros Karpenter's cron parser accepts, as five fields.
var macros = map[string]string{
	"@yearly":   "0 0 1 1 *",
	"@annually": "0 0 1 1 *",
	"@monthly":  "0 0 1 * *",
	"@weekly":   "0 0 * * 0",
	"@daily":    "0 0 * * *",
	"@midnight": "0 0 * * *",
	"@hourly":   "0 * * * *",
}

var dayNames = []string{"sun", "mon", "tue", "wed", "thu", "fri", "sat"}

func parseFields(schedule string) (fields, error) {
	s := strings.TrimSpace(schedule)
	if m, ok := macros[strings.ToLower(s)]; ok {
		s = m
	}
	parts := strings.Fields(s)
	if len(parts) != 5 {
		return fields{}, fmt.Errorf("schedule %q is not five cron fields", schedule)
	}
	f := fields{minute: parts[0], dom: wildcard(parts[2]), month: wildcard(parts[3])}
	var err error
	if f.hours, err = expand(parts[1], 0, 23, nil); err != nil {
		return fields{}, fmt.Errorf("hours %q: %v", parts[1], err)
	}
	if f.allDays = wildcard(parts[4]) == "*"; !f.allDays {
		days, err := expand(parts[4], 0, 7, dayNames)
		if err != nil {
			return fields{}, fmt.Errorf("days of the week %q: %v", parts[4], err)
		}
		for _, d := range days {
			f.days = append(f.days, d%7) // 7 is Sunday too
		}
		slices.Sort(f.days)
		f.days = slices.Compact(f.days)
	}
	return f, nil
}

// wildcard writes "?" (no specific value) as "*".
func wildcard(field string) string {
	if field == "?" {
		return "*"
	}
	return field
}

// singleMinute is the minute field as one number, when it is one.
func (f fields) singleMinute() (int, bool) {
	m, err := strconv.Atoi(f.minute)
	return m, err == nil && m >= 0 && m <= 59
}

// expand lists the values a cron field selects, in order: "*", numbers,
// names, ranges, steps and lists of them.
func expand(field string, lo, hi int, names []string) ([]int, error) {
	var out []int
	for _, item := range strings.Split(field, ",") {
		rng, step := item, 1
		if r, s, ok := strings.Cut(item, "/"); ok {
			n, err := strconv.Atoi(s)
			if err != nil || n < 1 {
				return nil, fmt.Errorf("step %q is not a positive number", s)
			}
			rng, step = r, n
		}
		from, to := lo, hi
		if rng != "*" {
			a, b, isRange := strings.Cut(rng, "-")
			var err error
			if from, err = value(a, lo, hi, names); err != nil {
				return nil, err
			}
			to = from
			if isRange {
				if to, err = value(b, lo, hi, names); err != nil {
					return nil, err
				}
			} else if step > 1 {
				to = hi
			}
			if to < from {
				return nil, fmt.Errorf("range %q runs backwards", rng)
			}
		}
		for v := from; v <= to; v += step {
			out = append(out, v)
		}
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

func value(s string, lo, hi int, names []string) (int, error) {
	if i := slices.Index(names, strings.ToLower(s)); i >= 0 {
		return i, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < lo || n > hi {
		return 0, fmt.Errorf("%q is not from %d to %d", s, lo, hi)
	}
	return n, nil
}

// shiftDays moves each weekday by n days.
func shiftDays(days []int, n int) []int {
	out := make([]int, len(days))
	for i, d := range days {
		out[i] = ((d+n)%7 + 7) % 7
	}
	slices.Sort(out)
	return out
}

// hoursField writes hours as a cron field, with ranges for runs.
func hoursField(hours []int) string {
	slices.Sort(hours)
	if len(hours) == 24 {
		return "*"
	}
	return runs(hours, strconv.Itoa)
}

// daysField writes weekdays as a cron field of names ("mon-fri").
func daysField(days []int, all bool) string {
	if all || len(days) == 7 {
		return "*"
	}
	return runs(days, func(d int) string { return dayNames[d] })
}

// runs writes sorted values as a list of ranges ("1-5,7").
func runs(vs []int, name func(int) string) string {
	var parts []string
	for i := 0; i < len(vs); {
		j := i
		for j+1 < len(vs) && vs[j+1] == vs[j]+1 {
			j++
		}
		switch {
		case j == i:
			parts = append(parts, name(vs[i]))
		case j == i+1:
			parts = append(parts, name(vs[i]), name(vs[j]))
		default:
			parts = append(parts, name(vs[i])+"-"+name(vs[j]))
		}
		i = j + 1
	}
	return strings.Join(parts, ",")
}

// Starts are the hours of the day a schedule's window opens in, and
// whether it opens on every day of the week.
func Starts(schedule string) (hours []int, everyDay bool, err error) {
	f, err := parseFields(schedule)
	if err != nil {
		return nil, false, err
	}
	return f.hours, f.allDays && f.dom == "*", nil
}
