package main

import (
	"fmt"
	"io"
	"path/filepath"

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
	res, err := pipeline.Run(pipeline.Options{Dir: dir, Envs: fs.Args()})
	if err != nil {
		return err
	}
	if err := printFindings(stderr, res.Findings); err != nil {
		return err
	}
	if check {
		differs, err := output.Diff(stdout, filepath.ToSlash(out), res.Bundles, res.Fleet)
		if err != nil {
			return err
		}
		if differs {
			return &exitError{exitFailure, fmt.Errorf("%s is not what the profiles render: run karpgen render", out)}
		}
		return nil
	}
	changed, err := output.Write(out, res.Bundles, res.Fleet)
	if err != nil {
		return err
	}
	isChanged := map[string]bool{}
	for _, e := range changed {
		isChanged[e] = true
	}
	for _, b := range res.Bundles {
		state := "unchanged"
		if isChanged[b.Env] {
			state = fmt.Sprintf("written (%d files)", len(b.Files))
		}
		fmt.Fprintf(stdout, "%s: %s\n", filepath.ToSlash(filepath.Join(out, b.Env)), state)
	}
	for _, f := range output.FleetFiles {
		if isChanged[f] {
			if _, ok := res.Fleet[f]; ok {
				fmt.Fprintf(stdout, "%s: written\n", filepath.ToSlash(filepath.Join(out, f)))
			} else {
				fmt.Fprintf(stdout, "%s: removed\n", filepath.ToSlash(filepath.Join(out, f)))
			}
		}
	}
	if len(fs.Args()) == 0 {
		for _, s := range output.Strays(out, res.Names) {
			fmt.Fprintf(stderr, "karpgen: %s belongs to no environment of the profiles; remove it if it is stale\n", filepath.ToSlash(filepath.Join(out, s)))
		}
	}
	return nil
}
