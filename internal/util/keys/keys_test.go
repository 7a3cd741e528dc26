package keys

import (
	"slices"
	"testing"
)

func TestUnion(t *testing.T) {
	for _, c := range []struct {
		a, b map[string]int
		want []string
	}{
		{nil, nil, []string{}},
		{map[string]int{"b": 1, "a": 2}, nil, []string{"a", "b"}},
		{nil, map[string]int{"z": 1, "y": 2}, []string{"y", "z"}},
		{map[string]int{"m": 1, "c": 1}, map[string]int{"c": 2, "a": 3, "z": 0}, []string{"a", "c", "m", "z"}},
	} {
		if got := Union(c.a, c.b); !slices.Equal(got, c.want) {
			t.Errorf("Union(%v, %v) = %q, want %q", c.a, c.b, got, c.want)
		}
	}
}
