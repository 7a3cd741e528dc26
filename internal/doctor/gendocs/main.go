// Command gendocs writes docs/doctor.md from the doctor's catalog, or
// with -check fails when the file is stale.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"

	"github.com/karpgen/karpgen/internal/doctor"
)

func main() {
	check := flag.Bool("check", false, "fail when the file is not what the catalog generates")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: gendocs [-check] FILE")
		os.Exit(2)
	}
	want := doctor.Docs()
	if *check {
		have, err := os.ReadFile(flag.Arg(0))
		if err != nil || !bytes.Equal(have, want) {
			fmt.Fprintf(os.Stderr, "%s is stale: run make docs\n", flag.Arg(0))
			os.Exit(1)
		}
		return
	}
	if err := os.WriteFile(flag.Arg(0), want, 0o644); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
