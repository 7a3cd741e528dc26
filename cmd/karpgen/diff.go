package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"

	"github.com/spf13/pflag"

	"github.com/karpgen/karpgen/internal/diag"
	"github.com/karpgen/karpgen/internal/fleetdiff"
	"github.com/karpgen/karpgen/internal/gitrev"
	"github.com/karpgen/karpgen/internal/load"
	"github.com/karpgen/karpgen/internal/model"
	"github.com/karpgen/karpgen/internal/pipeline"
	"github.com/karpgen/karpgen/internal/printer"
	"github.com/karpgen/karpgen/internal/simulate"
	"github.com/karpgen/karpgen/internal/util/escape"
	"github.com/karpgen/karpgen/internal/util/gcpolicy"
)

// errChanged ends a diff that found changes: exit 1, with nothing more to
// say than the report.
var errChanged = &exitError{exitFound, errors.New("")}

// runDiff renders the profiles and their base in memory and reports what
// the change does, environment by environment.
func runDiff(args []string, stdout, stderr io.Writer) error {
	var dir, format string
	var base baseFlags
	var ev evalFlags
	var workloads []string
	fs := newFlags("diff", stdout, stderr)
	base.add(fs)
	fs.StringArrayVar(&workloads, "workloads", nil, "also place the workloads of `PATH` (a manifest or a folder; repeat it) on both sides with Karpenter's scheduler, and name those whose pods land elsewhere or stay Pending after the change")
	addProfilesFlag(fs, &dir)
	addEvalFlags(fs, &ev)
	addFormatFlag(fs, &format, "output format: text, markdown or json", "text", "markdown", "json")
	if err := parse(fs, args); err != nil {
		return err
	}
	if n := base.count(); n != 1 {
		return usageErr("diff: name the base once, with --base, --base-rev or --base-dir")
	}
	baseFolder, baseName, closeBase, err := base.open(dir)
	if err != nil {
		return err
	}
	defer closeBase()
	// A revision from before the profiles folder existed has no
	// environments: every one of the head is added.
	baseRes := &pipeline.Result{All: true}
	if baseFolder.FS != nil {
		if baseRes, err = checkSide("diff", "base profiles ("+baseName+")", &baseFolder, "", ev, stderr); err != nil {
			return err
		}
	}
	headRes, err := checkSide("diff", "profiles ("+dir+")", nil, dir, ev, stderr)
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
	if len(workloads) > 0 {
		if err := diffWorkloads(report, baseRes, headRes, workloads); err != nil {
			return err
		}
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

// baseFlags name the base of a diff: --base is a folder or a revision,
// whichever exists, and refused when it is both (as git refuses such a
// name); --base-rev and --base-dir say which.
type baseFlags struct{ any, rev, dir string }

// add declares --base, --base-rev and --base-dir.
func (b *baseFlags) add(fs *pflag.FlagSet) {
	fs.StringVar(&b.any, "base", "", "the base: a git revision, or its profiles folder or a checkout holding it at --profiles' path; a name that is both is refused")
	fs.StringVar(&b.rev, "base-rev", "", "the base is this git revision of the repository around --profiles")
	fs.StringVar(&b.dir, "base-dir", "", "the base is this folder: its profiles, or a checkout holding them at --profiles' path")
}

func (b baseFlags) count() int {
	n := 0
	for _, s := range []string{b.any, b.rev, b.dir} {
		if s != "" {
			n++
		}
	}
	return n
}

// open opens the base. A revision is read from the object store of the
// repository around the profiles, never from a path the change under
// review controls; a revision without the profiles folder gives a folder
// without a file system (every environment is added).
func (b baseFlags) open(dir string) (load.Folder, string, func() error, error) {
	flag, name := "--base", b.any
	isDir, isRev := false, false
	var repo *gitrev.Repo
	var commit string
	var err error
	switch {
	case b.dir != "":
		flag, name, isDir = "--base-dir", b.dir, true
	case b.rev != "":
		flag, name, isRev = "--base-rev", b.rev, true
	default:
		_, statErr := os.Lstat(name)
		isDir = statErr == nil
		if repo, err = gitrev.Find(dir); err == nil {
			commit, err = repo.Resolve(name)
			isRev = err == nil
		}
		switch {
		case isDir && isRev:
			return load.Folder{}, "", nil, usageErr("diff: --base %s names both a path and a git revision: say which with --base-rev or --base-dir", escape.Terminal(strconv.Quote(name)))
		case !isDir && !isRev:
			isRev = true // the revision's own error says why it is none
		}
	}
	if isDir {
		info, err := os.Stat(name)
		if err != nil || !info.IsDir() {
			return load.Folder{}, "", nil, usageErr("diff: %s: there is no folder %s", flag, escape.Terminal(name))
		}
		folder := name
		if !filepath.IsAbs(dir) {
			if info, err := os.Stat(filepath.Join(name, dir)); err == nil && info.IsDir() {
				folder = filepath.Join(name, dir)
			}
		}
		f, closeFn, err := load.Open(folder)
		return f, folder, closeFn, err
	}
	// A revision: found and resolved once (above for --base).
	var rev *gitrev.Folder
	if commit == "" {
		rev, err = gitrev.Open(dir, name)
	} else {
		rev, err = repo.Read(commit, name, gitrev.Limits{})
	}
	if err != nil {
		var bad *gitrev.NameError
		if errors.As(err, &bad) {
			return load.Folder{}, "", nil, usageErr("diff: %s: %v", flag, err)
		}
		return load.Folder{}, "", nil, fmt.Errorf("diff: %s: %w", flag, err)
	}
	label := name + ":" + rev.Path
	if rev.Empty {
		return load.Folder{}, label, func() error { return nil }, nil
	}
	return load.Folder{FS: rev.FS, Path: label}, label, func() error { return nil }, nil
}

// checkSide evaluates one side for command cmd (diff, rotate). An
// invalid side is reported with its name, and exits 3.
func checkSide(cmd, side string, folder *load.Folder, dir string, ev evalFlags, stderr io.Writer) (*pipeline.Result, error) {
	res, err := pipeline.Check(pipeline.Options{Dir: dir, Folder: folder, Timeout: ev.timeout, Limits: &ev.limits, GC: gcpolicy.Diff})
	if err != nil {
		return nil, fmt.Errorf("%s: the %s: %w", cmd, side, err)
	}
	if diag.HasErrors(res.Findings) {
		fmt.Fprintf(stderr, "karpgen: %s: the %s are invalid:\n", cmd, side)
		_ = printFindings(stderr, res.Findings)
		return nil, errInvalid
	}
	return res, nil
}

// envNamed is the environment of that name, or nil.
func envNamed(envs []*model.Env, name string) *model.Env {
	for _, e := range envs {
		if e.Name == name {
			return e
		}
	}
	return nil
}

// diffWorkloads places the workloads on both sides of every environment
// that changes and notes those that land elsewhere.
func diffWorkloads(report *fleetdiff.Report, baseRes, headRes *pipeline.Result, paths []string) error {
	helper, err := simulate.FindHelper()
	if err != nil {
		return &exitError{exitFailure, fmt.Errorf("diff: --workloads: %w", err)}
	}
	ctx, cancel := context.WithTimeout(context.Background(), workloadsTimeout)
	defer cancel()
	ws, err := simulate.ReadWorkloads(ctx, paths)
	if err != nil {
		return &exitError{exitFailure, fmt.Errorf("diff: --workloads: %w", err)}
	}
	for i := range report.Changes {
		c := &report.Changes[i]
		before, after := envNamed(baseRes.Envs, c.Name), envNamed(headRes.Envs, c.Name)
		if c.Status != "changed" || before == nil || after == nil {
			continue
		}
		var sides [2]*simulate.Report
		for j, e := range []*model.Env{before, after} {
			if sides[j], err = simulateEnv(ctx, e, helper, ws); err != nil {
				return &exitError{exitFailure, fmt.Errorf("diff: --workloads: %s: %w", c.Name, err)}
			}
		}
		for _, m := range simulate.Moves(sides[0], sides[1]) {
			c.Workloads = append(c.Workloads, fleetdiff.WorkloadMove{File: m.File, Line: m.Line, Workload: m.Workload, Before: m.Before, After: m.After})
		}
		capBefore, capAfter := sides[0].Summary(), sides[1].Summary()
		if capBefore != capAfter {
			c.Capacity = &fleetdiff.CapacityChange{Before: capBefore, After: capAfter, Prices: sides[1].Capacity.Prices, Priced: sides[1].Capacity.Priced}
		}
	}
	return nil
}
