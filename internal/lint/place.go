package lint

import (
	"github.com/karpgen/karpgen/internal/facts/instancetypes"
)

// typeNames are the names of the instance types the tables know.
func typeNames() []string {
	var out []string
	for _, t := range instancetypes.All() {
		out = append(out, t.Name)
	}
	return out
}
