package prune

import (
	"bytes"
	"runtime"
	"slices"
	"testing"
)

// aheadSources are texts where a line may start inside a token: multi-
// line strings (plain, raw, bytes), interpolations across lines, and
// comments that spell quotes.
var aheadSources = []string{
	"package p\n\nx: {\n\ta: 1\n\tb: \"two\"\n}\n\ny: x.a + 2\n",
	"a: \"\"\"\n\tline one\n\t\"quoted\" b: c\n\t\"\"\"\nb: 2\n",
	"a: #\"\"\"\n\t\\(not) interpolated\n\t\"\"\"#\nc: d\nd: 1\n",
	"a: '''\n\tbytes \\(x)\n\t'''\nx: 3\n",
	"x: 1\na: \"\"\"\n\tspans \\(x +\n\t1) lines\n\t\"\"\"\nb: a\n",
	"// \"\"\" a comment\nx: 1 // trailing \"\n\ny: [1,\n\t2,\n]\n",
	"e: {\n\t\"env-1\": _b & {n: \"\\(k)\"}\n\t\"env-2\": _b\n}\n_b: {}\nk: \"v\"\n",
	"a: \"\"\"\n\n\n\t\"\"\"\n",
	"a: \"unterminated\nb: 1\n",
}

func lexAll(t testing.TB, src []byte, split int) ([]Token, bool) {
	var got []Token
	ok := tokensFrom("f.cue", src, split, func(x Token) { got = append(got, x) })
	return got, ok
}

// checkAhead holds scanning from both ends to scanning in one pass, for
// every line of src the second scanner could start on.
func checkAhead(t *testing.T, src []byte) {
	want, wantOK := lexAll(t, src, -1)
	for i := range src {
		if i > 0 && src[i-1] != '\n' {
			continue
		}
		got, ok := lexAll(t, src, i)
		if ok != wantOK || (ok && !slices.Equal(got, want)) {
			t.Fatalf("split at %d of %q: %v %v, want %v %v", i, src, ok, got, wantOK, want)
		}
	}
}

func TestTokensAhead(t *testing.T) {
	for _, s := range aheadSources {
		checkAhead(t, []byte(s))
	}
}

func FuzzTokensAhead(f *testing.F) {
	for _, s := range aheadSources {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		checkAhead(t, []byte(s))
	})
}

// TestAheadSplit: only files of aheadFrom bytes are split, at the start
// of the line past the middle.
func TestAheadSplit(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	line := []byte("\"env-0000\": _base & {cluster: name: \"ws-0000\"}\n")
	big := bytes.Repeat(line, aheadFrom/len(line)+1)
	if got := aheadSplit(big[:aheadFrom-1]); got != -1 {
		t.Errorf("a file under %d bytes split at %d", aheadFrom, got)
	}
	got := aheadSplit(big)
	if got <= len(big)/2 || got%len(line) != 0 || got-len(big)/2 > len(line) {
		t.Errorf("split at %d of %d, want the line start after the middle", got, len(big))
	}
}
