package boundyaml

import (
	"fmt"
	"strings"
	"testing"
)

// laughs is n levels of anchors, each naming the one before ten times.
func laughs(n int) string {
	var b strings.Builder
	b.WriteString("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n")
	for i := 1; i < n; i++ {
		fmt.Fprintf(&b, "a%d: &a%d [*a%d, *a%d, *a%d, *a%d, *a%d, *a%d, *a%d, *a%d, *a%d, *a%d]\n", i, i, i-1, i-1, i-1, i-1, i-1, i-1, i-1, i-1, i-1, i-1)
	}
	return b.String()
}

func TestCheck(t *testing.T) {
	for _, c := range []struct {
		name, src, want string
	}{
		{"plain", "resources: [a.yaml]\npatches:\n- path: p.yaml\n", ""},
		{"few aliases", laughs(3), ""},
		{"laughs", laughs(9), "laughs: its aliases expand to more than 200000 nodes: refused (nested anchors)"},
		{"over documents", strings.Repeat(laughs(4)+"---\n", 30), "over documents: its aliases expand to more than 200000 nodes: refused (nested anchors)"},
		{"big", strings.Repeat("#", MaxBytes+1), fmt.Sprintf("big: %d bytes, more than %d: refused", MaxBytes+1, MaxBytes)},
		{"broken", "a: [", ""},
		{"cycle", "a: &a [*a]\n", ""},
	} {
		err := Check(c.name, []byte(c.src))
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}

// FuzzCheck: Check never panics, and whatever it lets through decodes
// without expanding past the bound.
func FuzzCheck(f *testing.F) {
	f.Add(laughs(3))
	f.Add("a: &a [*a]\n")
	f.Add("x: &x {a: *x}")
	f.Fuzz(func(t *testing.T, src string) {
		_ = Check("f.yaml", []byte(src))
	})
}
