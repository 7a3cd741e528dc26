package model

import (
	"maps"
	"slices"
)

// Bundle is the rendered files of one environment, by slash-separated
// path relative to out/<env>/ (the layout files.go names). The renderer
// makes it; the sinks, the comparisons and the planners read it.
type Bundle struct {
	Env   string
	Files map[string][]byte
}

// Paths returns the file paths in sorted order.
func (b *Bundle) Paths() []string {
	return slices.Sorted(maps.Keys(b.Files))
}
