package facts

import (
	"maps"
	"slices"
	"strings"
	"testing"
)

// TestChartValuesByMinor holds the table read one minor at a time to the
// whole table read row by row: every minor, every key, every default.
func TestChartValuesByMinor(t *testing.T) {
	whole := map[string]map[string]string{}
	for line := range strings.Lines(chartValuesTSV) {
		line = strings.TrimSuffix(line, "\n")
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.SplitN(line, "\t", 3)
		if whole[f[0]] == nil {
			whole[f[0]] = map[string]string{}
		}
		whole[f[0]][f[1]] = f[2]
	}
	if got, want := slices.Sorted(maps.Keys(chartBlocks())), slices.Sorted(maps.Keys(whole)); !slices.Equal(got, want) {
		t.Fatalf("minors read: %v, want %v", got, want)
	}
	for _, m := range Minors {
		if whole[m.Minor] == nil {
			t.Errorf("the table has no chart values of %s", m.Minor)
		}
	}
	for minor, want := range whole {
		if got := ChartValues(minor); !maps.Equal(got, want) {
			t.Errorf("ChartValues(%s): %d keys, want %d", minor, len(got), len(want))
		}
	}
	if got := ChartValues("0.36"); got != nil {
		t.Errorf("ChartValues of a minor without a chart: %v, want nil", got)
	}
}
