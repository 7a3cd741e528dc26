package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"

	"github.com/karpgen/karpgen/internal/diag"
	"github.com/karpgen/karpgen/internal/fleetdiff"
	"github.com/karpgen/karpgen/internal/gitrev"
	"github.com/karpgen/karpgen/internal/load"
	"github.com/karpgen/karpgen/internal/model"
	"github.com/karpgen/karpgen/internal/pipeline"
)

// errChanged ends a diff that found changes: exit 1, with nothing more to
// say than the report.
var errChanged = &exitError{exitFailure, errors.New("")}

// runDiff renders the profiles and their base in memory and reports what
// the change does, environment by environment.
func runDiff(args []string, stdout, stderr io.Writer) error {
	var dir, base, format string
	var ev evalFlags
	fs := newFlags("diff", stdout, stderr)
	fs.StringVar(&base, "base", "", "the base: its profiles folder, a checkout holding it at --profiles' path, or a git revision (required)")
	addProfilesFlag(fs, &dir)
	addEvalFlags(fs, &ev)
	fs.StringVarP(&format, flagOutput, "o", "text", "output format: text, markdown or json")
	if err := parse(fs, args); err != nil {
		return err
	}
	if base == "" {
		return usageErr("diff: --base DIR|REV is required")
	}
	if format != "text" && format != "markdown" && format != "json" {
		return usageErr("diff: -o must be text, markdown or json, not %q", format)
	}
	baseFolder, baseName, closeBase, err := openBase(base, dir)
	if err != nil {
		return usageErr("diff: --base: %v", err)
	}
	defer closeBase()
	// A revision from before the profiles folder existed has no
	// environments: every one of the head is added.
	old := fleetdiff.NewSide(nil, nil, nil)
	if baseFolder.FS != nil {
		if old, err = renderSide("base profiles ("+baseName+")", baseFolder, "", ev, stderr, nil); err != nil {
			return err
		}
	}
	var report *fleetdiff.Report
	_, err = renderSide("profiles ("+dir+")", load.Folder{}, dir, ev, stderr, func(res *pipeline.Result) error {
		names := fs.Args()
		for _, n := range names {
			if old.Envs[n] == nil && !slices.Contains(res.Names, n) {
				return usageErr("diff: no environment %q on either side", n)
			}
		}
		d := fleetdiff.NewDiffer(baseName, old, envsByName(res.Envs), names)
		if err := res.Render(d); err != nil {
			return err
		}
		report, err = d.Report()
		return err
	})
	if err != nil {
		return err
	}
	switch format {
	case "json":
		err = report.JSON(stdout)
	case "markdown":
		err = report.Markdown(stdout)
	default:
		err = report.Text(stdout)
	}
	if err != nil {
		return err
	}
	if report.Summary.Changed > 0 || len(report.Fleet) > 0 {
		return errChanged
	}
	return nil
}

// openBase opens the base: a folder (the profiles, or a checkout with
// them at the path of --profiles) when one exists by that name, else a
// git revision of the repository around the profiles. A revision without
// the profiles folder gives a folder without a file system.
func openBase(base, dir string) (load.Folder, string, func() error, error) {
	if info, err := os.Stat(base); err == nil && info.IsDir() {
		folder := base
		if !filepath.IsAbs(dir) {
			if info, err := os.Stat(filepath.Join(base, dir)); err == nil && info.IsDir() {
				folder = filepath.Join(base, dir)
			}
		}
		f, closeFn, err := load.Open(folder)
		return f, folder, closeFn, err
	}
	rev, err := gitrev.Open(dir, base)
	if err != nil {
		return load.Folder{}, "", nil, err
	}
	name := base + ":" + rev.Path
	if rev.Empty {
		return load.Folder{}, name, func() error { return nil }, nil
	}
	return load.Folder{FS: rev.FS, Path: name}, name, func() error { return nil }, nil
}

// renderSide evaluates one side. Without a render function it renders
// every environment into memory and returns them; with one, it hands the
// checked result over (the head is compared as it renders). An invalid
// side is reported with its name, and exits 3.
func renderSide(side string, folder load.Folder, dir string, ev evalFlags, stderr io.Writer, render func(*pipeline.Result) error) (*fleetdiff.Side, error) {
	opts := pipeline.Options{Dir: dir, Timeout: ev.timeout, Limits: &ev.limits, Sized: fleetGC}
	if folder.FS != nil {
		opts.Folder = &folder
	}
	res, err := pipeline.Check(opts)
	if err != nil {
		return nil, fmt.Errorf("diff: the %s: %w", side, err)
	}
	if diag.HasErrors(res.Findings) {
		fmt.Fprintf(stderr, "karpgen: diff: the %s are invalid:\n", side)
		_ = printFindings(stderr, res.Findings)
		return nil, errInvalid
	}
	if render != nil {
		return nil, render(res)
	}
	var c pipeline.Collect
	if err := res.Render(&c); err != nil {
		return nil, fmt.Errorf("diff: rendering the %s: %w", side, err)
	}
	return fleetdiff.NewSide(res.Envs, c.Bundles, c.Fleet), nil
}

func envsByName(envs []*model.Env) map[string]*model.Env {
	m := map[string]*model.Env{}
	for _, e := range envs {
		m[e.Name] = e
	}
	return m
}
