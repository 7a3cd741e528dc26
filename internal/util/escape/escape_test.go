package escape

import (
	"bytes"
	"html"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"cuelang.org/go/cue/parser"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

var seeds = []string{
	"", "plain", "ws-dev", "a b", "it's", `"quoted"`, "$(touch /tmp/pwned)", "`id`", "a;b|c&d", "*?[x]",
	"line\nbreak", "\x1b[31mred\x1b[0m", "bell\a", "cr\rover", "tab\tsep", "::error::fake", "  ::warning file=x::y",
	"\u202eevil\u202c", "caf\u00e9", "\xff\xfe", "back\\slash", "<script>", "# heading", "| cell |", "```", "a\u2028b",
	"[link](http://x)", "*bold* _it_", "#quot;", "%s%n", "--flag", "-", "~user", "a=b",
	"@team", "ping @org/platform now", "https://evil.example/x", "see www.example.com", "WWW.EXAMPLE.COM",
	"ops@example.com", "mailto:ops@example.com", "xmpp:bot@example.com/x", "ftp://x.example", "a:b//c",
}

// shellWord reads back one word of a shell command as a POSIX shell
// would: parsed by mvdan.cc/sh and expanded with no variables.
func shellWord(t *testing.T, word string) string {
	t.Helper()
	f, err := syntax.NewParser(syntax.Variant(syntax.LangPOSIX)).Parse(strings.NewReader("x "+word+"\n"), "")
	if err != nil {
		t.Fatalf("%q does not parse: %v", word, err)
	}
	if len(f.Stmts) != 1 {
		t.Fatalf("%q is %d commands", word, len(f.Stmts))
	}
	call, ok := f.Stmts[0].Cmd.(*syntax.CallExpr)
	if !ok || len(call.Args) != 2 {
		t.Fatalf("%q is not one word", word)
	}
	got, err := expand.Literal(nil, call.Args[1])
	if err != nil {
		t.Fatalf("%q: %v", word, err)
	}
	return got
}

func checkShell(t *testing.T, s string) {
	if strings.ContainsRune(s, 0) || !utf8.ValidString(s) {
		return // no shell word holds NUL; the parser reads UTF-8 only
	}
	if _, err := syntax.Quote(s, syntax.LangPOSIX); err != nil {
		// Control characters, single-quoted as they are: mvdan.cc/sh's
		// parser mishandles a carriage return there, so ask a real shell.
		out, err := exec.Command("sh", "-c", "printf %s "+Shell(s)).Output()
		if err != nil || string(out) != s {
			t.Errorf("sh read %s as %q (%v), want %q", Shell(s), out, err, s)
		}
		return
	}
	if got := shellWord(t, Shell(s)); got != s {
		t.Errorf("Shell(%q) = %s reads back as %q", s, Shell(s), got)
	}
}

// TestShellWithARealShell: /bin/sh reads each word back as it was.
func TestShellWithARealShell(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	for _, s := range seeds {
		if !utf8.ValidString(s) {
			continue
		}
		out, err := exec.Command(sh, "-c", "printf %s "+Shell(s)).Output()
		if err != nil || string(out) != s {
			t.Errorf("sh read %s as %q (%v), want %q", Shell(s), out, err, s)
		}
	}
	if got := ShellJoin("aws", "eks", "--name", "a b"); got != "aws eks --name 'a b'" {
		t.Errorf("ShellJoin: %s", got)
	}
}

func FuzzShell(f *testing.F) {
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(checkShell)
}

func checkTerminal(t *testing.T, s string) {
	for _, form := range []string{Terminal(s), Line(s)} {
		if !utf8.ValidString(form) {
			t.Fatalf("%q: not UTF-8: %q", s, form)
		}
		for _, r := range form {
			if !unicode.IsGraphic(r) {
				t.Fatalf("%q: %q keeps %U", s, form, r)
			}
		}
		if form == s {
			if !clean(s) {
				t.Fatalf("%q is shown as it is", s)
			}
			continue
		}
		back, err := strconv.Unquote(form)
		if err != nil || back != s {
			t.Fatalf("%q: %q reads back as %q (%v)", s, form, back, err)
		}
	}
	if l := strings.TrimLeft(Line(s), " "); strings.HasPrefix(l, "::") {
		t.Fatalf("%q: Line starts a workflow command: %s", s, Line(s))
	}
}

func FuzzTerminal(f *testing.F) {
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(checkTerminal)
}

// checkComment: a comment line of a CUE file holds Comment(s) whole (the
// file still has its one field after it), shows only graphic characters,
// and keeps text without line breaks or controls as it is.
func checkComment(t *testing.T, s string) {
	c := Comment(s)
	for _, r := range c {
		if !unicode.IsGraphic(r) {
			t.Fatalf("%q: %q keeps %U", s, c, r)
		}
	}
	if clean(s) && c != s {
		t.Fatalf("%q, clean, is written %q", s, c)
	}
	f, err := parser.ParseFile("x.cue", "// "+c+"\nx: 1\n", parser.ParseComments)
	if err != nil || len(f.Decls) != 1 {
		t.Fatalf("%q: the comment %q does not stay one line (%v)", s, c, err)
	}
}

func FuzzComment(f *testing.F) {
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(checkComment)
}

var (
	paragraph = regexp.MustCompile(`(?s)^<p>(.*)</p>\n$`)
	// gfm reads Markdown as GitHub does, autolinks (www., scheme://,
	// name@host) included.
	gfm = goldmark.New(goldmark.WithExtensions(extension.GFM))
	// mention is what GitHub notifies: "@" then a name, not after a word.
	mention = regexp.MustCompile(`(^|[^A-Za-z0-9_])@[A-Za-z0-9]`)
)

// checkMarkdown: x+Markdown(s) is one paragraph of GitHub Markdown that
// shows x+Terminal(s), holds no link and mentions nobody.
func checkMarkdown(t *testing.T, s string) {
	md := "x" + Markdown(s)
	var out bytes.Buffer
	if err := gfm.Convert([]byte(md), &out); err != nil {
		t.Fatal(err)
	}
	m := paragraph.FindStringSubmatch(out.String())
	if m == nil {
		t.Fatalf("%q: Markdown %q is not one paragraph: %q", s, md, out.String())
	}
	if strings.Contains(m[1], "<a ") {
		t.Fatalf("%q: Markdown %q is shown with a link: %q", s, md, m[1])
	}
	shown := html.UnescapeString(m[1])
	if mention.MatchString(shown) {
		t.Fatalf("%q: Markdown %q shows a mention: %q", s, md, shown)
	}
	if got, want := strings.ReplaceAll(shown, "\u200b", ""), "x"+Terminal(s); got != want {
		t.Fatalf("%q: Markdown %q shows %q, want %q", s, md, got, want)
	}
}

// TestMarkdownNeutralizes names what GitHub would act on, as the file
// holds it.
func TestMarkdownNeutralizes(t *testing.T) {
	for s, want := range map[string]string{
		"@team":                  "@&#8203;team",
		"https://evil.example/x": "https:&#8203;//evil.example/x",
		"www.example.com":        "www&#8203;.example.com",
		"ops@example.com":        "ops@&#8203;example.com",
	} {
		if got := Markdown(s); got != want {
			t.Errorf("Markdown(%q) = %q, want %q", s, got, want)
		}
	}
}

func FuzzMarkdown(f *testing.F) {
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(checkMarkdown)
}

var entity = regexp.MustCompile(`#([0-9]+);`)

func checkMermaid(t *testing.T, s string) {
	label := Mermaid(s)
	for _, r := range label {
		if r >= 0x80 || !(unicode.IsLetter(r) || unicode.IsDigit(r) || strings.ContainsRune(" ,.-_/=:@%+()#;", r)) {
			t.Fatalf("%q: label %q holds %q", s, label, r)
		}
	}
	got := entity.ReplaceAllStringFunc(label, func(e string) string {
		n, _ := strconv.Atoi(entity.FindStringSubmatch(e)[1])
		return string(rune(n))
	})
	if want := Terminal(s); got != want {
		t.Fatalf("%q: label %q reads %q, want %q", s, label, got, want)
	}
}

func FuzzMermaid(f *testing.F) {
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(checkMermaid)
}

var codeSpan = regexp.MustCompile(`(?s)^<p>x<code>(.*)</code></p>\n$`)

func checkCode(t *testing.T, s string) {
	if s == "" {
		return
	}
	md := "x" + Code(s)
	var out bytes.Buffer
	if err := goldmark.Convert([]byte(md), &out); err != nil {
		t.Fatal(err)
	}
	m := codeSpan.FindStringSubmatch(out.String())
	if m == nil {
		t.Fatalf("%q: %q is not one code span: %q", s, md, out.String())
	}
	// Outside a table the escaped pipe shows its backslash.
	if got, want := html.UnescapeString(m[1]), strings.ReplaceAll(Terminal(s), "|", `\|`); got != want {
		t.Fatalf("%q: code %q shows %q, want %q", s, md, got, want)
	}
}

func FuzzCode(f *testing.F) {
	for _, s := range append(seeds, "`", "a``b", " x ", "`x`") {
		f.Add(s)
	}
	f.Fuzz(checkCode)
}
