package budgetcheck

import (
	"fmt"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clocktesting "k8s.io/utils/clock/testing"
	v1 "sigs.k8s.io/karpenter/pkg/apis/v1"

	"github.com/karpgen/karpgen/internal/budget"
	"github.com/karpgen/karpgen/internal/profile"
)

// TestBudgetsAsKarpenter: for each budget, the minutes of a week in which
// karpgen's week holds it in force are exactly those in which Karpenter's
// Budget.IsActive says it is active: schedules that never come (the 30th
// of February, active always), windows across midnight and across the
// week's end, minutes off the hour, a zone half an hour off UTC, and a
// budget without a schedule.
func TestBudgetsAsKarpenter(t *testing.T) {
	kolkata, err := budget.Zone("Asia/Kolkata")
	if err != nil {
		t.Fatal(err)
	}
	local := []struct {
		b   profile.Budget
		loc *time.Location
	}{
		{profile.Budget{Nodes: "0"}, time.UTC},
		{profile.Budget{Nodes: "0", Schedule: "0 0 30 2 *", Duration: "1h"}, time.UTC},
		{profile.Budget{Nodes: "0", Schedule: "0 0 31 4 *", Duration: "10h"}, time.UTC},
		{profile.Budget{Nodes: "0", Schedule: "0 22 * * sun", Duration: "4h"}, time.UTC},
		{profile.Budget{Nodes: "0", Schedule: "17 9 * * mon-fri", Duration: "1h30m"}, time.UTC},
		{profile.Budget{Nodes: "0", Schedule: "*/20 * * * *", Duration: "5m"}, time.UTC},
		{profile.Budget{Nodes: "0", Schedule: "@daily", Duration: "24h"}, time.UTC},
		{profile.Budget{Nodes: "0", Schedule: "30 9 * * mon-fri", Duration: "10h"}, kolkata},
		{profile.Budget{Nodes: "0", Schedule: "0 1 * * sat", Duration: "48h"}, kolkata},
	}
	for _, tc := range local {
		c, err := budget.ToUTC(tc.b, tc.loc)
		if err != nil {
			t.Fatalf("%+v: %v", tc.b, err)
		}
		for _, b := range c.UTC {
			t.Run(fmt.Sprintf("%s for %s", b.Schedule, b.Duration), func(t *testing.T) {
				start := budget.Monday(time.January, tc.loc)
				w, err := budget.Effective([]profile.Budget{b}, []string{"Drifted"}, start)
				if err != nil {
					t.Fatal(err)
				}
				up := v1.Budget{Nodes: b.Nodes}
				if b.Schedule != "" {
					d, err := time.ParseDuration(b.Duration)
					if err != nil {
						t.Fatal(err)
					}
					up.Schedule, up.Duration = &b.Schedule, &metav1.Duration{Duration: d}
				}
				clock := clocktesting.NewFakeClock(start)
				wrong := 0
				for m, l := range w.Minutes["Drifted"] {
					clock.SetTime(start.Add(time.Duration(m) * time.Minute))
					active, err := up.IsActive(clock)
					if err != nil {
						t.Fatal(err)
					}
					if ours := l != budget.Unlimited; ours != active && wrong < 5 {
						wrong++
						t.Errorf("%s: karpgen says in force %v, Karpenter's IsActive %v", clock.Now().UTC().Format("Mon 15:04"), ours, active)
					}
				}
			})
		}
	}
}
