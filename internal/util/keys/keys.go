// Package keys lists the keys of two maps together, in order: what a
// comparison of an old and a new map goes over.
package keys

import (
	"maps"
	"slices"
)

// Union is the keys of a and b, each once, sorted.
func Union[V any](a, b map[string]V) []string {
	out := slices.Sorted(maps.Keys(a))
	for k := range b {
		if _, ok := a[k]; !ok {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}
