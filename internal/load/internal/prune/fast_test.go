package prune

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"cuelang.org/go/cue/token"
	"github.com/rogpeppe/go-internal/txtar"

	"github.com/karpgen/karpgen/internal/bench/fleet"
)

// fastLexHandles are texts fastLex must read (not give up on).
var fastLexHandles = []string{
	"package p\n\nx: {\n\ta: 1\n\tb: \"two\"\n}\n\ny: x.a + 2\n",
	"a: 1 // a comment\nb: [1, 2,\n\t3] // another\n// alone\nc: a\n",
	"a: 1\n, b: 2\nc: 3\n:\n",
	"x: \"s\\(a)t\\(b + \"u\\(c)\")v\" \ny: \"\\(f(g(1)))\"\n",
	"#D: {a?: int, b!: string, _h: 1, $d: 2, _#p: 3}\nv: #D & {a: 1}\n",
	"e: [for k, v in x if v > 1 {k}]\nlet l = 1\nf: l\ng: true || false && null != 1\n",
	"a: 1.5\nb: 0\nc: -3\nd: \"\"\ne: ''\nf: 'bytes'\ng: =~\"^x\" & !~\"y\" & <=3 & >=1 & <2 & >0\n",
	"a: [...string]\nb: {...}\nc: a[0]\nd: \"\\\\ \\\" \\n \\t \\/\"\n",
	"environments: {\n\t\"env-1\": _b & {n: \"\\(k)\"}\n\t\"env-2\": _b\n}\n_b: {}\nk: \"v\"\n",
	"s: \"héllo wörld\" // ünïcode\n",
	"a: b\n\n\n",
	"",
}

// fastLexGivesUp are texts outside its subset.
var fastLexGivesUp = []string{
	"a: \"\"\"\n\tx\n\t\"\"\"\n",
	"a: #\"raw\"#\n",
	"a: 1e3\n",
	"a: 1Gi\n",
	"a: 0x10\n",
	"a: .5\n",
	"a: _|_\n",
	"@attr()\na: 1\n",
	"a: 1\r\n",
	"a: \"\\u00e9\"\n",
	"a: \"open\n",
	"a: \"\\(b\n",
	"é: 1\n",
	"a: \"\xff\"\n",
	"a: 1 %\n",
}

func lexTokens(src string) ([]Token, bool) {
	var toks []Token
	ok := lex("f.cue", []byte(src), 0, func(t Token, _ bool) bool { toks = append(toks, t); return true })
	return toks, ok
}

func fastTokens(src string) ([]Token, bool) {
	var toks []Token
	ok := Fast(src, func(t Token) { toks = append(toks, t) })
	return toks, ok
}

// sameAsCUE fails when fastLex reads src but not as CUE's scanner does.
func sameAsCUE(t *testing.T, name, src string) bool {
	got, ok := fastTokens(src)
	if !ok {
		return false
	}
	want, wantOK := lexTokens(src)
	if !wantOK {
		t.Errorf("%s: fastLex reads %q, which CUE's scanner refuses", name, src)
	} else if !slices.Equal(got, want) {
		t.Errorf("%s: fastLex reads %q as\n%v\nCUE's scanner as\n%v", name, src, got, want)
	}
	return true
}

// TestFastLexAsCUE holds fastLex to CUE's scanner on texts written for
// it, on every CUE file of the repository and of the command scenarios,
// and on a generated fleet.
func TestFastLexAsCUE(t *testing.T) {
	for _, src := range fastLexHandles {
		if !sameAsCUE(t, "case", src) {
			t.Errorf("fastLex gave up on %q", src)
		}
	}
	for _, src := range fastLexGivesUp {
		if _, ok := fastTokens(src); ok {
			t.Errorf("fastLex read %q, outside its subset", src)
		}
	}
	root := filepath.Join("..", "..", "..", "..")
	read, total := 0, 0
	check := func(name, src string) {
		total++
		if sameAsCUE(t, name, src) {
			read++
		}
	}
	files, _ := filepath.Glob(filepath.Join(root, "*", "*.cue"))
	more, _ := filepath.Glob(filepath.Join(root, "internal", "*", "testdata", "*", "*.cue"))
	for _, f := range append(files, more...) {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		check(f, string(data))
	}
	scripts, _ := filepath.Glob(filepath.Join(root, "cmd/karpgen/testdata/script/*.txtar"))
	for _, s := range scripts {
		a, err := txtar.ParseFile(s)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range a.Files {
			if strings.HasSuffix(f.Name, ".cue") {
				check(s+":"+f.Name, string(f.Data))
			}
		}
	}
	dir := t.TempDir()
	if err := fleet.Write(dir, 50); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"base.cue", "environments.cue"} {
		data, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		if !sameAsCUE(t, f, string(data)) {
			t.Errorf("fastLex gave up on the fleet's %s", f)
		}
	}
	t.Logf("fastLex read %d of %d files of the repository", read, total)
	if read < total/2 {
		t.Errorf("fastLex read only %d of %d files", read, total)
	}
}

func FuzzFastLexAsCUE(f *testing.F) {
	for _, s := range append(append(slices.Clone(fastLexHandles), fastLexGivesUp...), aheadSources...) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		sameAsCUE(t, "fuzz", src)
	})
}

// TestMayBeKeyword: no keyword is taken for an identifier.
func TestMayBeKeyword(t *testing.T) {
	n := 0
	for tk := token.Token(0); tk < 200; tk++ {
		if tk.IsKeyword() {
			n++
			if !mayBeKeyword(tk.String()) {
				t.Errorf("keyword %q is not looked up", tk)
			}
		}
	}
	if n < 10 {
		t.Errorf("only %d keywords", n)
	}
}
