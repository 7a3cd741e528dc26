// Command gendocs writes the rule catalog to docs/rules.md, or with -check
// fails when the file is not what the catalog generates.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"

	"github.com/karpgen/karpgen/internal/lint"
)

func main() {
	check := flag.Bool("check", false, "fail when the file is stale instead of writing it")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: gendocs [-check] FILE")
		os.Exit(2)
	}
	path, want := flag.Arg(0), lint.Markdown()
	if *check {
		have, err := os.ReadFile(path)
		if err != nil || !bytes.Equal(have, want) {
			fmt.Fprintf(os.Stderr, "%s is stale: run make docs\n", path)
			os.Exit(1)
		}
		return
	}
	if err := os.WriteFile(path, want, 0o644); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
