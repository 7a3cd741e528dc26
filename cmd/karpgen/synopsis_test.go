package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/karpgen/karpgen/internal/oracle"
)

// synopsisBlock is the README's generated command list.
var synopsisBlock = regexp.MustCompile("(?s)(<!-- synopsis:[^\n]*-->\n```\n)(.*?)(```\n<!-- /synopsis -->)")

// TestReadmeSynopsis: the README lists every command with the flags its
// --help has, as generated; a hand edit fails here (KARPGEN_UPDATE=1
// rewrites the block).
func TestReadmeSynopsis(t *testing.T) {
	path := filepath.Join(oracle.Root(), "README.md")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	m := synopsisBlock.FindSubmatch(data)
	if m == nil {
		t.Fatal("README.md has no synopsis block")
	}
	want := synopsis()
	if string(m[2]) == want {
		return
	}
	if os.Getenv("KARPGEN_UPDATE") == "1" {
		out := synopsisBlock.ReplaceAllLiteral(data, []byte(string(m[1])+want+string(m[3])))
		if err := os.WriteFile(path, out, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("README.md's command list is not what the commands' help says (KARPGEN_UPDATE=1 rewrites it):\n got:\n%s\nwant:\n%s", m[2], want)
}

// TestSynopsisFollowsHelp: a flag a command gains shows in the synopsis.
func TestSynopsisFollowsHelp(t *testing.T) {
	for _, c := range commands() {
		if strings.HasPrefix(c.name, "__") {
			continue
		}
		line := synopsisOf(c)
		// The help read on its own, not through helpFlags.
		var help bytes.Buffer
		c.run([]string{"--help"}, &help, &help)
		_, flags, _ := strings.Cut(help.String(), "\nFlags:\n")
		for _, m := range regexp.MustCompile(`(?m)^\s+(?:-\w, )?(--[a-z0-9-]+)`).FindAllStringSubmatch(flags, -1) {
			f := m[1]
			if f == "--help" {
				continue
			}
			if !strings.Contains(line, f+" ") && !strings.Contains(line, f+"]") && !(f == "--output" && strings.Contains(line, "[-o ")) {
				t.Errorf("%s: %s is missing from %q", c.name, f, line)
			}
		}
	}
}

// TestOneRecordPerCommand: each command's --help, its line of the
// README's synopsis and whether completion offers environment names all
// come from its one record: the help starts with the record's usage,
// about and example, and the synopsis has its usage. (completion.txtar
// holds which commands complete environments to the records.)
func TestOneRecordPerCommand(t *testing.T) {
	syn := synopsis()
	for _, c := range commands() {
		if strings.HasPrefix(c.name, "__") {
			continue
		}
		var out, errOut bytes.Buffer
		run([]string{c.name, "--help"}, &out, &errOut)
		help := out.String() + errOut.String()
		if want := "Usage:\n  " + c.usage + "\n\n" + c.about + "\n\nExample:\n  " + c.example + "\n"; !strings.HasPrefix(help, want) {
			t.Errorf("%s --help:\n%s\nwant it to start:\n%s", c.name, help, want)
		}
		if !strings.Contains(syn, strings.TrimSuffix(c.usage, " [flags]")) {
			t.Errorf("the synopsis has no line for %s's usage %q", c.name, c.usage)
		}
	}
}
