package budget

import (
	"fmt"
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

// TestScheduleThatNeverComes: the 30th of February never opens a window.
func TestScheduleThatNeverComes(t *testing.T) {
	w, err := Effective([]profile.Budget{{Nodes: "0", Schedule: "0 0 30 2 *", Duration: "1h"}}, []string{"Drifted"}, Monday(time.January, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	if rows := w.Rows(); len(rows) != 1 || rows[0].Limit != Unlimited {
		t.Errorf("rows %+v, want no limit all week", rows)
	}
}
