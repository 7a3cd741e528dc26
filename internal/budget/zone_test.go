package budget

import (
	"archive/zip"
	"bytes"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/robfig/cron/v3"

	"github.com/karpgen/karpgen/internal/facts"
	"github.com/karpgen/karpgen/internal/profile"
)

func TestToUTC(t *testing.T) {
	for _, tc := range []struct {
		zone, schedule, duration string
		want                     string // UTC budgets as "schedule for duration", joined by "; "
		widened                  time.Duration
		err                      string
	}{
		// No daylight saving: the window moves back nine hours, to the
		// evening before.
		{"Asia/Seoul", "0 9 * * mon-fri", "10h", "0 0 * * mon-fri for 10h", 0, ""},
		{"Asia/Seoul", "0 8 * * mon-fri", "10h", "0 23 * * sun-thu for 10h", 0, ""},
		{"Asia/Seoul", "30 22 * * sat", "2h", "30 13 * * sat for 2h", 0, ""},
		// Hours that land on two UTC days give two budgets.
		{"Asia/Seoul", "0 6,12 * * mon", "1h", "0 21 * * sun for 1h; 0 3 * * mon for 1h", 0, ""},
		{"Asia/Seoul", "@daily", "1h", "0 15 * * * for 1h", 0, ""},
		{"Asia/Seoul", "*/15 * * * *", "5m", "*/15 * * * * for 5m", 0, ""},
		// Daylight saving: the window starts at the summer offset's hour
		// and lasts an hour longer, covering both.
		{"Europe/Berlin", "0 8 * * mon-fri", "10h", "0 6 * * mon-fri for 11h", time.Hour, ""},
		{"America/New_York", "0 22 * * fri", "8h", "0 2 * * sat for 9h", time.Hour, ""},
		// Half-hour offsets move the minute.
		{"Asia/Kolkata", "0 9 * * *", "8h", "30 3 * * * for 8h", 0, ""},
		{"Asia/Kolkata", "0,30 9 * * *", "8h", "", 0, `minutes "0,30" move with the zone's offset of UTC+05:30: give a single minute`},
		{"UTC", "0 0 1 * *", "1h", "0 0 1 * * for 1h", 0, ""},
		{"Asia/Seoul", "0 0 1 * *", "1h", "", 0, "a schedule that names days of the month or months cannot be moved to UTC: write it in UTC, with no timeZone"},
		{"Asia/Seoul", "0 9 * *", "1h", "", 0, `schedule "0 9 * *" is not five cron fields`},
	} {
		loc, err := Zone(tc.zone)
		if err != nil {
			t.Fatal(err)
		}
		got, err := ToUTC(profile.Budget{Nodes: "0", Schedule: tc.schedule, Duration: tc.duration}, loc)
		if tc.err != "" {
			if err == nil || err.Error() != tc.err {
				t.Errorf("%s %q: error %v, want %q", tc.zone, tc.schedule, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s %q: %v", tc.zone, tc.schedule, err)
			continue
		}
		var parts []string
		for _, b := range got.UTC {
			parts = append(parts, b.Schedule+" for "+b.Duration)
		}
		if s := strings.Join(parts, "; "); s != tc.want || got.Widened != tc.widened {
			t.Errorf("%s %q for %s: got %q widened %s, want %q widened %s", tc.zone, tc.schedule, tc.duration, s, got.Widened, tc.want, tc.widened)
		}
	}
}

func TestZone(t *testing.T) {
	for _, name := range []string{"", "Local", "KST", "Asia/Soeul"} {
		if _, err := Zone(name); err == nil {
			t.Errorf("Zone(%q) accepted", name)
		}
	}
}

// TestUTCWindowsHoldEveryLocalMinute holds the conversion to upstream's
// parser through every minute of the reference year: wherever the local
// window is open (the schedule read in the zone by the same cron package,
// as Karpenter would read it if it took a zone), the UTC budgets karpgen
// writes are in force as Karpenter decides it (a hit of "TZ=UTC
// <schedule>" within the duration before the moment); and they are in
// force at most Widened longer per window than the local one.
func TestUTCWindowsHoldEveryLocalMinute(t *testing.T) {
	if testing.Short() {
		t.Skip("walks every minute of a year")
	}
	for _, tc := range []struct{ zone, schedule, duration string }{
		{"Asia/Seoul", "0 9 * * mon-fri", "10h"},
		{"Europe/Berlin", "0 8 * * mon-fri", "10h"},
		{"America/New_York", "0 22 * * fri", "8h"},
		{"Australia/Sydney", "30 1 * * sat,sun", "3h"},
		{"Asia/Kolkata", "0 20 * * *", "6h"},
		{"Asia/Seoul", "0 6,12 * * mon", "1h"},
	} {
		loc, _ := Zone(tc.zone)
		conv, err := ToUTC(profile.Budget{Nodes: "0", Schedule: tc.schedule, Duration: tc.duration}, loc)
		if err != nil {
			t.Fatal(err)
		}
		d, _ := time.ParseDuration(tc.duration)
		local := inForce(t, "CRON_TZ="+tc.zone+" "+tc.schedule, d)
		var utc []func(time.Time) bool
		for _, b := range conv.UTC {
			bd, _ := time.ParseDuration(b.Duration)
			utc = append(utc, inForce(t, "TZ=UTC "+b.Schedule, bd))
		}
		extra, windows := 0, 0
		wasLocal := false
		for m := time.Date(ReferenceYear, 1, 8, 0, 0, 0, 0, time.UTC); m.Year() == ReferenceYear; m = m.Add(time.Minute) {
			l := local(m)
			u := false
			for _, f := range utc {
				u = u || f(m)
			}
			if l && !u {
				t.Fatalf("%s %q: open at %s local but no UTC budget is in force", tc.zone, tc.schedule, m.In(loc))
			}
			if u && !l {
				extra++
			}
			if l && !wasLocal {
				windows++
			}
			wasLocal = l
		}
		if limit := windows * int(conv.Widened/time.Minute); extra > limit {
			t.Errorf("%s %q: the UTC budgets are in force %d minutes outside the local windows, more than %d (%d windows × %s)", tc.zone, tc.schedule, extra, limit, windows, conv.Widened)
		}
		if conv.Widened == 0 && extra != 0 {
			t.Errorf("%s %q: %d minutes in force outside the local windows of a zone without daylight saving", tc.zone, tc.schedule, extra)
		}
	}
}

// inForce is Karpenter's Budget.IsActive for a parsed schedule.
func inForce(t *testing.T, spec string, d time.Duration) func(time.Time) bool {
	sched, err := cron.ParseStandard(spec)
	if err != nil {
		t.Fatalf("%s: %v", spec, err)
	}
	return func(now time.Time) bool {
		return !sched.Next(now.UTC().Add(-d)).After(now.UTC())
	}
}

// TestEveryRegionHasAZone: init writes the zone of every region karpgen
// knows, and each loads.
func TestEveryRegionHasAZone(t *testing.T) {
	for region := range facts.Regions {
		tz, ok := facts.RegionTimeZones[region]
		if !ok {
			t.Errorf("region %s has no time zone", region)
			continue
		}
		if _, err := Zone(tz); err != nil {
			t.Errorf("region %s: %v", region, err)
		}
	}
	for region := range facts.RegionTimeZones {
		if _, ok := facts.Regions[region]; !ok {
			t.Errorf("time zone of an unknown region %s", region)
		}
	}
}

// TestZonesAreKarpgensOwn: a zone comes from karpgen's database whatever
// the machine holds. A $ZONEINFO folder whose Asia/Seoul is Kolkata's
// data (a machine with another tzdata release, or a planted one) changes
// nothing, and the names of the machine's own clock are refused, as the
// plugin's image has no clock of its own to name.
func TestZonesAreKarpgensOwn(t *testing.T) {
	dir := t.TempDir()
	r, err := zip.NewReader(bytes.NewReader(zoneinfo), int64(len(zoneinfo)))
	if err != nil {
		t.Fatal(err)
	}
	kolkata, err := r.Open("Asia/Kolkata")
	if err != nil {
		t.Fatal(err)
	}
	data, err := io.ReadAll(kolkata)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"Asia/Seoul", "localtime", "Local"} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("ZONEINFO", dir)
	t.Setenv("TZ", "Asia/Kolkata")
	loc, err := Zone("Asia/Seoul")
	if err != nil {
		t.Fatal(err)
	}
	if got := Offsets(loc); !slices.Equal(got, []int{9 * 3600}) {
		t.Errorf("Asia/Seoul: offsets %v, want [32400] whatever $ZONEINFO holds", got)
	}
	for _, name := range []string{"localtime", "Local", "", "/etc/localtime", "../Asia/Seoul", "asia/seoul"} {
		if _, err := Zone(name); err == nil || err.Error() != strconv.Quote(name)+` is not an IANA time zone name such as "Asia/Seoul"` {
			t.Errorf("Zone(%q): %v", name, err)
		}
	}
}
