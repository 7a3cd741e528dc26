package main

import (
	"fmt"
	"io"
	"runtime/debug"

	"github.com/karpgen/karpgen/generators/facts"
)

func runVersion(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("version", stdout, stderr)
	if err := parse(fs, args); err != nil {
		return err
	}
	v := "(devel)"
	if info, ok := debug.ReadBuildInfo(); ok && info.Main.Version != "" {
		v = info.Main.Version
	}
	fmt.Fprintf(stdout, "karpgen %s (Karpenter %s to %s)\n", v, facts.Oldest().Minor, facts.Newest().Minor)
	return nil
}
