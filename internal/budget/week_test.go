package budget

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/karpgen/karpgen/internal/profile"
)

func TestEffectiveWeek(t *testing.T) {
	seoul, _ := Zone("Asia/Seoul")
	reasons := []string{"Underutilized", "Empty", "Drifted"}
	for _, tc := range []struct {
		name    string
		budgets []profile.Budget
		loc     *time.Location
		want    string
	}{
		{"drift blocked in Seoul's working hours", []profile.Budget{{Nodes: "10%"}, {Nodes: "0", Reasons: []string{"Drifted"}, Schedule: "0 0 * * mon-fri", Duration: "10h"}}, seoul, `
Underutilized, Empty | every day | all day | 10%
Drifted | Mon–Fri | 00:00–09:00, 19:00–24:00 | 10%
Drifted | Mon–Fri | 09:00–19:00 | 0
Drifted | Sat, Sun | all day | 10%`},
		// Budgets given: Karpenter adds no default, so outside the window
		// nothing limits disruption.
		{"a window alone", []profile.Budget{{Nodes: "0", Schedule: "0 22 * * *", Duration: "8h"}}, time.UTC, `
Underutilized, Empty, Drifted | every day | 00:00–06:00, 22:00–24:00 | 0
Underutilized, Empty, Drifted | every day | 06:00–22:00 | no limit`},
		{"a count and a percentage", []profile.Budget{{Nodes: "10%"}, {Nodes: "3", Reasons: []string{"Empty"}}}, time.UTC, `
Underutilized, Drifted | every day | all day | 10%
Empty | every day | all day | 10% or 3, the fewer`},
		{"no budget", nil, time.UTC, `
Underutilized, Empty, Drifted | every day | all day | no limit`},
	} {
		w, err := Effective(tc.budgets, reasons, Monday(time.January, tc.loc))
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		for _, r := range w.Rows() {
			fmt.Fprintf(&b, "\n%s | %s | %s | %s", strings.Join(r.Reasons, ", "), r.Days, r.Hours, r.Limit)
		}
		if b.String() != tc.want {
			t.Errorf("%s:%s\nwant:%s", tc.name, b.String(), tc.want)
		}
	}
}

// TestScheduleThatNeverComes: the 30th of February never comes, and
// Karpenter's Budget.IsActive then holds the budget in force at every
// moment (the zero time robfig/cron gives is not after now): nodes "0"
// blocks drift all week.
func TestScheduleThatNeverComes(t *testing.T) {
	w, err := Effective([]profile.Budget{{Nodes: "0", Schedule: "0 0 30 2 *", Duration: "1h"}}, []string{"Drifted"}, Monday(time.January, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	if rows := w.Rows(); len(rows) != 1 || rows[0].Limit != (Limit{-1, 0}) || rows[0].Days != "every day" || rows[0].Hours != "all day" {
		t.Errorf("rows %+v, want 0 every day, all day", rows)
	}
}

// TestWeekInMinutes: a zone half an hour off UTC keeps its minutes in the
// week's rows; an hour-wide view would show 09:00–19:00 for a window of
// 09:30–19:30.
func TestWeekInMinutes(t *testing.T) {
	kolkata, err := Zone("Asia/Kolkata")
	if err != nil {
		t.Fatal(err)
	}
	c, err := ToUTC(profile.Budget{Nodes: "0", Schedule: "30 9 * * mon-fri", Duration: "10h"}, kolkata)
	if err != nil {
		t.Fatal(err)
	}
	w, err := Effective(c.UTC, []string{"Drifted"}, Monday(time.January, kolkata))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range w.Rows() {
		got = append(got, r.Days+" "+r.Hours+" "+r.Limit.String())
	}
	want := []string{"Mon–Fri 00:00–09:30, 19:30–24:00 no limit", "Mon–Fri 09:30–19:30 0", "Sat, Sun all day no limit"}
	if !slices.Equal(got, want) {
		t.Errorf("rows:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if h := w.Hours["Drifted"]; h[9] != (Limit{-1, 0}) || h[19] != (Limit{-1, 0}) || h[20] != Unlimited {
		t.Errorf("hours 9, 19, 20 of Monday: %v %v %v; an hour holds the tightest of its minutes", h[9], h[19], h[20])
	}
}
