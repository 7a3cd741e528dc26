package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"

	"github.com/karpgen/karpgen/internal/diag"
	"github.com/karpgen/karpgen/internal/gcpolicy"
	"github.com/karpgen/karpgen/internal/gitrev"
	"github.com/karpgen/karpgen/internal/load"
	"github.com/karpgen/karpgen/internal/pipeline"
	"github.com/karpgen/karpgen/internal/printer"
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
	baseRes := &pipeline.Result{All: true}
	if baseFolder.FS != nil {
		if baseRes, err = checkSide("base profiles ("+baseName+")", &baseFolder, "", ev, stderr); err != nil {
			return err
		}
	}
	headRes, err := checkSide("profiles ("+dir+")", nil, dir, ev, stderr)
	if err != nil {
		return err
	}
	names := fs.Args()
	for _, n := range names {
		if !slices.Contains(baseRes.Names, n) && !slices.Contains(headRes.Names, n) {
			return usageErr("diff: no environment %q on either side", n)
		}
	}
	report, err := pipeline.Compare(baseName, baseRes, headRes, names)
	if err != nil {
		return err
	}
	switch format {
	case "json":
		err = printer.JSON(stdout, report)
	case "markdown":
		err = printer.DiffMarkdown(stdout, report)
	default:
		err = printer.Diff(stdout, report)
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

// checkSide evaluates one side. An invalid side is reported with its
// name, and exits 3.
func checkSide(side string, folder *load.Folder, dir string, ev evalFlags, stderr io.Writer) (*pipeline.Result, error) {
	res, err := pipeline.Check(pipeline.Options{Dir: dir, Folder: folder, Timeout: ev.timeout, Limits: &ev.limits, GC: gcpolicy.Diff})
	if err != nil {
		return nil, fmt.Errorf("diff: the %s: %w", side, err)
	}
	if diag.HasErrors(res.Findings) {
		fmt.Fprintf(stderr, "karpgen: diff: the %s are invalid:\n", side)
		_ = printFindings(stderr, res.Findings)
		return nil, errInvalid
	}
	return res, nil
}
