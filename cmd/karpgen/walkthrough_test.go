package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"

	"github.com/karpgen/karpgen/internal/oracle"
)

var walkthrough = regexp.MustCompile("(?s)<!-- walkthrough:[^\n]*-->\n```sh\n(.*?)```\n<!-- /walkthrough -->")

// TestReadmeWalkthrough runs the README's first-hour commands exactly as
// written there, in one empty folder: each exits 0 and prints what the
// README says it does, so the README cannot promise what karpgen does not
// do.
func TestReadmeWalkthrough(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(oracle.Root(), "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	m := walkthrough.FindSubmatch(data)
	if m == nil {
		t.Fatal("README.md has no walkthrough block")
	}
	f, err := syntax.NewParser().Parse(bytes.NewReader(m[1]), "README.md")
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(t.TempDir())
	ran := 0
	for _, stmt := range f.Stmts {
		call, ok := stmt.Cmd.(*syntax.CallExpr)
		if !ok {
			t.Fatalf("not a simple command: %v", stmt)
		}
		var args []string
		for _, w := range call.Args {
			s, err := expand.Literal(nil, w)
			if err != nil {
				t.Fatal(err)
			}
			args = append(args, s)
		}
		if args[0] != "karpgen" {
			t.Fatalf("the walkthrough runs %s", args[0])
		}
		var stdout, stderr bytes.Buffer
		if code := run(args[1:], &stdout, &stderr); code != 0 {
			t.Fatalf("%s exited %d:\n%s%s", strings.Join(args, " "), code, stdout.String(), stderr.String())
		}
		for _, r := range stmt.Redirs {
			if r.Op != syntax.RdrOut {
				t.Fatalf("redirection %v", r.Op)
			}
			name, _ := expand.Literal(nil, r.Word)
			if err := os.WriteFile(name, stdout.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		ran++
	}
	for _, want := range []string{"profiles/profiles.cue", "out/dev/nodepools.yaml", "out/dev/upgrade/1.15.2/UPGRADE.md", "capture.sh"} {
		if _, err := os.Stat(want); err != nil {
			t.Errorf("after the walkthrough: %v", err)
		}
	}
	if ran < 8 {
		t.Errorf("ran %d commands", ran)
	}
}
