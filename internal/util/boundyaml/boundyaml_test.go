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

// TestStrict: a key given twice anywhere (in a flow mapping, below an
// alias, in a later document) and a tag outside YAML's core types are
// refused at their position; anchors, merges and core tags pass.
func TestStrict(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"a: 1\nb: 2\n", ""},
		{"a: !!str 1\nb: !!int 2\nc: !!null ~\n", ""},
		{"base: &b {x: 1}\nuse:\n  <<: *b\n  y: 2\n", ""},
		{"a: 1\na: 2\n", `f:2:1: the key "a" is given twice (first at line 1)`},
		{"x: {a: 1, b: 2, a: 3}\n", `f:1:17: the key "a" is given twice (first at line 1)`},
		{"ok: 1\n---\nk:\n  - {n: 1}\n  - {n: 1, n: 2}\n", `f:5:12: the key "n" is given twice (first at line 5)`},
		{"base: &b {x: 1, x: 2}\nuse: *b\n", `f:1:17: the key "x" is given twice (first at line 1)`},
		{"role: !!binary S2FycA==\n", "f:1:7: the tag !!binary is not one karpgen reads"},
		{"role: !!timestamp 2001-12-14\n", "f:1:7: the tag !!timestamp is not one karpgen reads"},
		{"x: [a, !custom b]\n", "f:1:8: the tag !custom is not one karpgen reads"},
		{"a: [unclosed\n", ""},
	} {
		err := Strict("f", []byte(tc.in))
		got := ""
		if err != nil {
			got = err.Error()
		}
		if (tc.want == "") != (got == "") || !strings.HasPrefix(got, tc.want) {
			t.Errorf("%q: %q, want %q", tc.in, got, tc.want)
		}
	}
}
