package doctor

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"

	"github.com/karpgen/karpgen/internal/facts"
)

// leafDiff is a values key whose meaning differs, with both values as
// the report shows them.
type leafDiff struct{ Key, Have, Want string }

// valuesDiff compares the values a release holds (helm get values: what
// the user gave) with the values the bundle renders, as the chart reads
// them: a key either side leaves out takes the chart's default (defaults,
// the minor's values.yaml as dotted keys with JSON values), and two
// scalars that Helm's templates print alike ("1" and 1, "true" and true)
// are equal.
func valuesDiff(have, want any, defaults map[string]string) []leafDiff {
	h, w := leaves(have), leaves(want)
	keys := map[string]bool{}
	for k := range h {
		keys[k] = true
	}
	for k := range w {
		keys[k] = true
	}
	var out []leafDiff
	for _, k := range slices.Sorted(maps.Keys(keys)) {
		hv, hok := h[k]
		wv, wok := w[k]
		if !hok {
			hv, hok = defaults[k]
		}
		if !wok {
			wv, wok = defaults[k]
		}
		if hok && wok && sameMeaning(hv, wv) {
			continue
		}
		out = append(out, leafDiff{k, shown(hv, hok), shown(wv, wok)})
	}
	return out
}

// leaves are the values' leaf keys, dotted, with their values as JSON.
func leaves(v any) map[string]string {
	data, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	out, err := facts.ValuesLeaves(data)
	if err != nil {
		return nil
	}
	return out
}

// sameMeaning reports two JSON values a chart's templates print alike:
// equal, or two scalars whose printed forms are equal.
func sameMeaning(a, b string) bool {
	if a == b {
		return true
	}
	var x, y any
	if json.Unmarshal([]byte(a), &x) != nil || json.Unmarshal([]byte(b), &y) != nil {
		return false
	}
	sx, okx := scalarText(x)
	sy, oky := scalarText(y)
	return okx && oky && sx == sy
}

// scalarText is a scalar as a template prints it.
func scalarText(v any) (string, bool) {
	switch v := v.(type) {
	case string:
		return v, true
	case bool:
		return fmt.Sprint(v), true
	case float64:
		return fmt.Sprint(v), true
	}
	return "", false
}

func shown(v string, ok bool) string {
	if !ok {
		return "(unset)"
	}
	return v
}
