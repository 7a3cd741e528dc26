package simulate_test

import (
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/karpgen/karpgen/internal/bench/benchdoc"
	"github.com/karpgen/karpgen/simulate/internal/sched"
)

// TestSideBySideWithUpstream times simulate's scheduler and Karpenter's
// own provisioner on the same requests, alternately, and writes the
// medians into the results file KARPGEN_BENCH_JSON names (make bench:
// docs/bench.json), from which docs/performance.md quotes the ratio. The
// target is simulate within 1.2× of upstream. Without the variable
// there is nothing to write, and it is skipped.
func TestSideBySideWithUpstream(t *testing.T) {
	path := os.Getenv("KARPGEN_BENCH_JSON")
	if path == "" {
		t.Skip("KARPGEN_BENCH_JSON names no results file (make bench sets it)")
	}
	results, err := benchdoc.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	const rounds = 3
	results.Simulate = nil
	for _, c := range []struct {
		id, name, workloads string
	}{
		{"diverse-1000", "1,000 pods of upstream's benchmark shapes, 10 pools", diverse(200)},
		{"plain-10000", "10,000 pods without constraints, 10 pools", plain(2000)},
		{"diverse-10000", "10,000 pods of upstream's benchmark shapes, 10 pools", diverse(2000)},
	} {
		req := benchRequest(t, c.workloads)
		var mine, theirs []float64
		for range rounds {
			start := time.Now()
			if _, err := sched.Run(req); err != nil {
				t.Fatal(err)
			}
			mine = append(mine, ms(time.Since(start)))
			start = time.Now()
			if _, err := sched.RunUpstream(req); err != nil {
				t.Fatal(err)
			}
			theirs = append(theirs, ms(time.Since(start)))
		}
		results.Simulate = append(results.Simulate,
			benchdoc.Row{ID: "simulate-" + c.id, Name: c.name, WallMS: median(mine)},
			benchdoc.Row{ID: "upstream-" + c.id, Name: c.name, WallMS: median(theirs)})
		t.Logf("%s: simulate %.0f ms, Karpenter's provisioner %.0f ms: %.2f×", c.id, median(mine), median(theirs), median(mine)/median(theirs))
	}
	data, err := json.MarshalIndent(results, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, append(data, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s) == 0 {
		panic(fmt.Sprint("median of nothing"))
	}
	return s[len(s)/2]
}
