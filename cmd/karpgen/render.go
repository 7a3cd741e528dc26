package main

import (
	"bytes"
	"fmt"
	"io"
	"path/filepath"

	"github.com/karpgen/karpgen/generators"
	"github.com/karpgen/karpgen/internal/output"
	"github.com/karpgen/karpgen/internal/pipeline"
)

func runRender(args []string, stdout, stderr io.Writer) error {
	var dir, out string
	var check bool
	fs := newFlags("render", stderr)
	addProfilesFlag(fs, &dir)
	fs.StringVar(&out, flagOut, "out", "folder of the rendered bundles, one folder per environment")
	fs.BoolVar(&check, flagCheck, false, "render in memory, print a diff against --out and exit 1 when anything differs; write nothing")
	if err := parse(fs, args); err != nil {
		return err
	}
	res, err := pipeline.Check(pipeline.Options{Dir: dir, Envs: fs.Args()})
	if err != nil {
		return err
	}
	if err := printFindings(stderr, res.Findings); err != nil {
		return err
	}
	fleet, err := res.Fleet()
	if err != nil {
		return err
	}
	if check {
		return renderCheck(stdout, filepath.ToSlash(out), res, fleet)
	}
	// Every profile is valid here: what remains can only fail on the file
	// system, and each environment's folder is replaced atomically.
	if err := output.Prepare(out); err != nil {
		return err
	}
	states := make([]string, len(res.Profiles))
	err = res.Render(func(i int, b *generators.Bundle) error {
		changed, err := output.WriteBundle(out, b)
		states[i] = "unchanged"
		if changed {
			states[i] = fmt.Sprintf("written (%d files)", len(b.Files))
		}
		return err
	})
	for i, p := range res.Profiles {
		if states[i] != "" {
			fmt.Fprintf(stdout, "%s: %s\n", filepath.ToSlash(filepath.Join(out, p.Env)), states[i])
		}
	}
	if err != nil {
		return err
	}
	if fleet == nil {
		return nil
	}
	changed, err := output.WriteFleet(out, fleet)
	if err != nil {
		return err
	}
	for _, f := range changed {
		state := "removed"
		if _, ok := fleet[f]; ok {
			state = "written"
		}
		fmt.Fprintf(stdout, "%s: %s\n", filepath.ToSlash(filepath.Join(out, f)), state)
	}
	for _, s := range output.Strays(out, res.Names) {
		fmt.Fprintf(stderr, "karpgen: %s belongs to no environment of the profiles; remove it if it is stale\n", filepath.ToSlash(filepath.Join(out, s)))
	}
	return nil
}

// renderCheck prints the difference between out and what the profiles
// render, and fails when there is one.
func renderCheck(stdout io.Writer, out string, res *pipeline.Result, fleet map[string][]byte) error {
	differs := false
	if fleet != nil {
		d, err := output.DiffFleet(stdout, out, fleet)
		if err != nil {
			return err
		}
		differs = d
	}
	diffs := make([]bytes.Buffer, len(res.Profiles))
	err := res.Render(func(i int, b *generators.Bundle) error {
		_, err := output.DiffBundle(&diffs[i], out, b)
		return err
	})
	if err != nil {
		return err
	}
	for i := range diffs {
		differs = differs || diffs[i].Len() > 0
		stdout.Write(diffs[i].Bytes())
	}
	if differs {
		return &exitError{exitFailure, fmt.Errorf("%s is not what the profiles render: run karpgen render", out)}
	}
	return nil
}
