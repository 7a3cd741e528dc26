package prune

import (
	"slices"
	"strings"
	"testing"
)

// TestScanFileDrops: the shapes of `environments` a package is written
// in, and what is taken out of each when only dev is kept. Dropped text
// goes, its newlines stay, and what followed it on its last line keeps
// its column; what cannot be dropped safely stays as written.
func TestScanFileDrops(t *testing.T) {
	for _, c := range []struct {
		name, src, want string
		dropped         []string
	}{{
		name:    "a struct of environments, one per line",
		src:     "package p\n\nenvironments: {\n\tdev: _base & {x: 1}\n\t\"prod-1\": _base & {\n\t\tx: \"a\\(y)b\"\n\t}\n}\n",
		want:    "package p\n\nenvironments: {\n\tdev: _base & {x: 1}\n\t\n\n  \n}\n",
		dropped: []string{"prod-1"},
	}, {
		name:    "commas in the source and the last field before the brace",
		src:     "environments: {prod: 1, dev: 2, stage: {a: [1, 2]}}\n",
		want:    "environments: {         dev: 2,                   }\n",
		dropped: []string{"prod", "stage"},
	}, {
		name:    "one declaration per environment",
		src:     "environments: dev: x: 1\nenvironments: prod: x: 2\nenvironments: \"qa\": {\n\tx: 3\n}\n",
		want:    "environments: dev: x: 1\nenvironments: {}        \nenvironments: {}\n\n \n",
		dropped: []string{"prod", "qa"},
	}, {
		name:    "hidden fields, definitions, patterns, let clauses, optional fields, aliases and comprehensions stay",
		src:     "environments: {\n\t_h: 1\n\t#D: 2\n\t[string]: {}\n\tlet L = 3\n\topt?: L\n\tA=al: 4\n\tfor k in [] {}\n\tprod: 5\n}\n",
		want:    "environments: {\n\t_h: 1\n\t#D: 2\n\t[string]: {}\n\tlet L = 3\n\topt?: L\n\tA=al: 4\n\tfor k in [] {}\n\t       \n}\n",
		dropped: []string{"prod"},
	}, {
		name: "a struct in an expression is not pruned",
		src:  "environments: {prod: 1} & {}\nenvironments: _x & {prod: 2}\n",
		want: "environments: {prod: 1} & {}\nenvironments: _x & {prod: 2}\n",
	}} {
		t.Run(c.name, func(t *testing.T) {
			refs := map[string]bool{}
			s := scanFile("p.cue", c.src, refs)
			if s == nil {
				t.Fatal("the file did not scan")
			}
			if got := string(s.blanked(map[string]bool{"dev": true})); got != c.want {
				t.Errorf("pruned:\n%q\nwant:\n%q", got, c.want)
			}
			// Every plain field is noted; all but dev's are dropped.
			dropped := slices.DeleteFunc(slices.Clone(s.dropped), func(n string) bool { return n == "dev" })
			if !slices.Equal(dropped, c.dropped) {
				t.Errorf("dropped %q, want %q", dropped, c.dropped)
			}
			// Every byte left is at its line and column.
			orig, kept := strings.Split(c.src, "\n"), strings.Split(string(s.blanked(map[string]bool{"dev": true})), "\n")
			if len(orig) != len(kept) {
				t.Fatalf("%d lines, want %d", len(kept), len(orig))
			}
			for i, l := range kept {
				for j := range len(l) {
					if l[j] != ' ' && l[j] != orig[i][j] && !strings.HasPrefix(l[j:], "{}") && !strings.HasSuffix(l[:j+1], "{}") {
						t.Errorf("line %d column %d: %q, was %q", i+1, j+1, l[j], orig[i][j])
					}
				}
			}
		})
	}
}

// TestScanFileReferences: every identifier but a label is a reference,
// inside string interpolations too.
func TestScanFileReferences(t *testing.T) {
	refs := map[string]bool{}
	src := "a: b\nc?: d.e\nf!: \"\\(g) and \\(h + \"\\(i)\")\"\nlet j = k\nenvironments: l: m\n"
	if scanFile("p.cue", src, refs) == nil {
		t.Fatal("the file did not scan")
	}
	var got []string
	for r := range refs {
		got = append(got, r)
	}
	slices.Sort(got)
	if want := []string{"b", "d", "e", "g", "h", "i", "j", "k", "m"}; !slices.Equal(got, want) {
		t.Errorf("references %q, want %q", got, want)
	}
	if scanFile("p.cue", "a: \"open\n", refs) != nil {
		t.Error("a string that is not closed scanned")
	}
}
