package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/spf13/pflag"

	"github.com/karpgen/karpgen/internal/action"
	"github.com/karpgen/karpgen/internal/printer"
)

// errChanged ends a diff that found changes: exit 1, with nothing more to
// say than the report.
var errChanged = &exitError{exitFound, errors.New("")}

// diffCommand renders the profiles and their base in memory and reports what
// the change does, environment by environment.
func diffCommand(fs *pflag.FlagSet, stdout, stderr io.Writer) func(args []string) error {
	var d action.Diff
	var format string
	addBaseFlags(fs, &d.Base)
	fs.StringArrayVar(&d.Workloads, "workloads", nil, "also place the workloads of `PATH` (a manifest or a folder; repeat it) on both sides with Karpenter's scheduler, and name those whose pods land elsewhere or stay Pending after the change")
	fs.StringArrayVar(&d.States, "state", nil, "the capture of environment ENV's cluster (karpgen doctor --capture-script), given as `ENV=DIR`: it prices the nodes of --workloads, and --disruption decides on its nodes; repeat it for each environment")
	fs.BoolVar(&d.Disruption, "disruption", false, "also run Karpenter's disruption controller on the nodes of each --state capture with both sides' pools, and name the nodes the change lets go or keeps")
	addProfilesFlag(fs, &d.Dir)
	addEvalFlags(fs, &d.Eval)
	addFormatFlag(fs, &format, "output format: text, markdown or json", "text", "markdown", "json")
	return func(args []string) error {
		d.Envs = fs.Args()
		report, err := d.Run()
		if err != nil {
			return printInvalid(stderr, err)
		}
		if err := printer.Report(stdout, format, report); err != nil {
			return err
		}
		if report.Summary.Changed > 0 || len(report.Fleet) > 0 {
			return errChanged
		}
		return nil
	}
}

// addBaseFlags declares --base, --base-rev and --base-dir: --base is a
// folder or a revision, whichever exists; the others say which.
func addBaseFlags(fs *pflag.FlagSet, b *action.Base) {
	fs.StringVar(&b.Any, "base", "", "the base: a git revision, or its profiles folder or a checkout holding it at --profiles' path; a name that is both is refused")
	fs.StringVar(&b.Rev, "base-rev", "", "the base is this git revision of the repository around --profiles")
	fs.StringVar(&b.Dir, "base-dir", "", "the base is this folder: its profiles, or a checkout holding them at --profiles' path")
}

// printInvalid prints the findings of profiles that do not vet (an
// environment, or a side of a comparison, named) and exits 3; any other
// error passes as it is.
func printInvalid(stderr io.Writer, err error) error {
	var inv *action.InvalidError
	if !errors.As(err, &inv) {
		return err
	}
	if inv.Side != "" {
		fmt.Fprintf(stderr, "karpgen: %s: the %s are invalid:\n", inv.Cmd, inv.Side)
	}
	_ = printFindings(stderr, inv.Findings)
	return errInvalid
}
