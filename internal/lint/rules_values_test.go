package lint

import "testing"

// TestValidCron: schedules as Karpenter's budgets parse them.
func TestValidCron(t *testing.T) {
	for s, want := range map[string]bool{
		"0 9 * * mon-fri": true, "@daily": true, "*/15 0-6 1,15 * *": true, "0 0 * * SUN": true,
		"@every 1h": false, "61 * * * *": false, "* * * *": false, "0 9 * * funday": false, "CRON_TZ=UTC 0 9 * * *": false, "": false,
	} {
		if got := validCron(s); got != want {
			t.Errorf("validCron(%q) = %v, want %v", s, got, want)
		}
	}
}
