package gcpolicy

import "testing"

// TestFleetLimit holds the limit to the sizes the policy was measured at:
// 1,000 environments under 200 MiB of RSS, 10,000 under 1 GiB, and past
// that never close to what the evaluated package keeps live.
func TestFleetLimit(t *testing.T) {
	for _, c := range []struct {
		envs int
		mib  int64
	}{
		{1, 150}, {300, 150}, {1000, 156}, {2000, 293}, {4000, 566}, {10000, 900}, {20000, 1562},
	} {
		if got := fleetLimit(c.envs) >> 20; got != c.mib {
			t.Errorf("fleetLimit(%d) = %d MiB, want %d MiB", c.envs, got, c.mib)
		}
	}
}

// TestBatchedLimit: a package evaluated in batches keeps the whole
// package's limit up to 600 MiB and stops there, however large; one
// evaluated whole keeps growing with it.
func TestBatchedLimit(t *testing.T) {
	for _, c := range []struct {
		envs    int
		batched bool
		mib     int64
	}{
		{1000, true, 156}, {4000, true, 566}, {10000, true, 600}, {20000, true, 600},
		{10000, false, 900}, {20000, false, 1562},
	} {
		if got := Limit(c.envs, c.batched) >> 20; got != c.mib {
			t.Errorf("Limit(%d, batched %v) = %d MiB, want %d MiB", c.envs, c.batched, got, c.mib)
		}
	}
}
