// Package budget is what karpgen knows of disruption budgets beyond their
// fields: it rewrites schedules written in a team's time zone into the UTC
// schedules Karpenter evaluates (Karpenter parses every schedule as
// "TZ=UTC <schedule>", so a time zone cannot be given to it), and it
// computes, hour by hour of a week, how many nodes of a pool each
// disruption reason may take at once, combining budgets as Karpenter does.
package budget

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"time"

	"github.com/karpgen/karpgen/internal/profile"
)

// ReferenceYear is the year whose UTC offsets stand for a zone's: a zone
// that moves its clocks does so within it.
const ReferenceYear = 2027

// Zone loads an IANA time zone ("Asia/Seoul") from karpgen's own copy of
// the database. "UTC" is UTC; "Local", "localtime" and anything else that
// names the machine's clock rather than a zone are refused, as is every
// name the database does not hold.
func Zone(name string) (*time.Location, error) {
	if name == "UTC" {
		return time.UTC, nil
	}
	loc, ok := loadZone(name)
	if !ok {
		return nil, fmt.Errorf("%q is not an IANA time zone name such as \"Asia/Seoul\"", name)
	}
	return loc, nil
}

// ZoneOf is the zone a profile's timeZone names, with its name: UTC when
// it names none, or one vet refuses (value/time-zone).
func ZoneOf(name string) (*time.Location, string) {
	if loc, err := Zone(name); err == nil {
		return loc, name
	}
	return time.UTC, "UTC"
}

// Offsets are the distinct UTC offsets, in seconds east of UTC, that loc
// uses in the reference year, smallest first: one for a zone without
// daylight saving, two for most that have it.
func Offsets(loc *time.Location) []int {
	seen := map[int]bool{}
	for day := time.Date(ReferenceYear, 1, 1, 12, 0, 0, 0, loc); day.Year() == ReferenceYear; day = day.AddDate(0, 0, 1) {
		_, off := day.Zone()
		seen[off] = true
	}
	return slices.Sorted(maps.Keys(seen))
}

// Converted is one budget written in local time, as Karpenter gets it.
type Converted struct {
	// UTC holds the budgets Karpenter gets: the same budget with its
	// schedule in UTC, or several when the local window crosses midnight
	// in UTC for some of its hours only.
	UTC []profile.Budget
	// Widened is how much longer each UTC window is than the local one:
	// for a zone that moves its clocks, the window covers the local hours
	// under every offset of the year, so it opens an hour early (or ends
	// an hour late) for part of it. A scheduled budget only ever limits
	// disruption while its window is open, so a wider window never allows
	// what the local one forbids.
	Widened time.Duration
}

// ToUTC rewrites b, whose schedule is local time in loc, for Karpenter.
// A budget without a schedule is unchanged. A schedule that names days of
// the month or months cannot be moved (the day before the first of a
// month is no cron field), nor one whose minutes are not a single value in
// a zone whose offset is not whole hours: ToUTC says so.
func ToUTC(b profile.Budget, loc *time.Location) (Converted, error) {
	if b.Schedule == "" {
		return Converted{UTC: []profile.Budget{b}}, nil
	}
	local, err := time.ParseDuration(b.Duration)
	if err != nil {
		return Converted{}, fmt.Errorf("duration %q is not a duration such as \"10h\"", b.Duration)
	}
	f, err := parseFields(b.Schedule)
	if err != nil {
		return Converted{}, err
	}
	offs := Offsets(loc)
	east := offs[len(offs)-1] // the earliest UTC start of the window
	widened := time.Duration(east-offs[0]) * time.Second
	if f.dom != "*" || f.month != "*" {
		if east == 0 && widened == 0 {
			return Converted{UTC: []profile.Budget{b}}, nil
		}
		return Converted{}, errors.New("a schedule that names days of the month or months cannot be moved to UTC: write it in UTC, with no timeZone")
	}
	minute, single := f.singleMinute()
	if east%3600 != 0 && !single {
		return Converted{}, fmt.Errorf("minutes %q move with the zone's offset of %s: give a single minute", f.minute, OffsetText(east))
	}
	// Each hour of the window's start, shifted to UTC, lands on the same
	// day, the day before or the day after.
	byDay := map[int][]int{}
	var utcMinute int
	for _, h := range f.hours {
		total := h*60 + minute - east/60
		day := floorDiv(total, 24*60)
		at := total - day*24*60
		utcMinute = at % 60
		if f.allDays {
			day = 0 // every day is every day shifted
		}
		byDay[day] = append(byDay[day], at/60)
	}
	minuteField := f.minute
	if single {
		minuteField = strconv.Itoa(utcMinute)
	}
	var out []profile.Budget
	for _, day := range slices.Sorted(maps.Keys(byDay)) {
		days := f.days
		if !f.allDays {
			days = shiftDays(f.days, day)
		}
		u := b
		u.Schedule = fmt.Sprintf("%s %s * * %s", minuteField, hoursField(byDay[day]), daysField(days, f.allDays))
		u.Duration = durationText(local + widened)
		out = append(out, u)
	}
	return Converted{UTC: out, Widened: widened}, nil
}

// OffsetText writes a UTC offset in seconds as "UTC+09:00".
func OffsetText(sec int) string {
	sign := "+"
	if sec < 0 {
		sign, sec = "-", -sec
	}
	return fmt.Sprintf("UTC%s%02d:%02d", sign, sec/3600, sec%3600/60)
}

// durationText writes d as Karpenter's budgets are usually written:
// "10h", "90m", "1h30m".
func durationText(d time.Duration) string {
	h, m := int(d/time.Hour), int(d%time.Hour/time.Minute)
	switch {
	case m == 0:
		return fmt.Sprintf("%dh", h)
	case h == 0:
		return fmt.Sprintf("%dm", m)
	}
	return fmt.Sprintf("%dh%dm", h, m)
}

func floorDiv(a, b int) int {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}
