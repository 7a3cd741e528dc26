package lint

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/karpgen/karpgen/internal/facts"
)

var hintKey = regexp.MustCompile(`(?:did you mean|use) ([A-Za-z0-9_.-]+)\??$`)

// TestValuesHintsNameKeysVetAccepts: for every minor, every chart key
// misspelt, moved under controller. and under settings.aws. gets a hint
// that, where it names a key, names one the chart has: a hint is never a
// key vet would refuse in turn.
func TestValuesHintsNameKeysVetAccepts(t *testing.T) {
	hints := 0
	for _, m := range facts.Minors {
		chart := facts.ChartValues(m.Minor)
		var doc strings.Builder
		for i, k := range slices.Sorted(maps.Keys(chart)) {
			parts := strings.Split(k, ".")
			last := parts[len(parts)-1]
			if len(last) < 4 || strings.ContainsAny(last, "/") {
				continue
			}
			for _, wrong := range []string{last[:len(last)-1], "controller." + last, "settings.aws." + last} {
				fmt.Fprintf(&doc, "---\n%s: x%d\n", strings.ReplaceAll(wrong, ".", ":\n  "), i)
			}
		}
		for _, d := range strings.Split(doc.String(), "---\n")[1:] {
			for _, f := range CheckValues("v.yaml", []byte(d), m.Minor) {
				if f.Hint == "" {
					t.Errorf("%s: %s has no hint", m.Minor, f.Message)
					continue
				}
				mm := hintKey.FindStringSubmatch(f.Hint)
				if mm == nil {
					continue
				}
				hints++
				key := mm[1]
				if _, ok := chart[key]; !ok && !hasPrefix(chart, key+".") {
					t.Errorf("%s: %s: the hint %q names a key the chart does not have", m.Minor, f.Message, f.Hint)
				}
			}
		}
	}
	if hints < 100 {
		t.Errorf("only %d hints named a key", hints)
	}
}
