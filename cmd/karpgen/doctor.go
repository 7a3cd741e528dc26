package main

import (
	"fmt"
	"io"

	"github.com/spf13/pflag"

	"github.com/karpgen/karpgen/internal/action"
	"github.com/karpgen/karpgen/internal/printer"
)

// doctorCommand prints the capture script of an environment, or checks a
// captured folder against the bundle, offline.
func doctorCommand(fs *pflag.FlagSet, stdout, stderr io.Writer) func(args []string) error {
	var d action.Doctor
	var state, format string
	var script bool
	fs.BoolVar(&script, "capture-script", false, "print the shell script that captures the account's and cluster's state")
	fs.StringVar(&state, "state", "", "check the captured folder")
	addProfilesFlag(fs, &d.Dir)
	addEvalFlags(fs, &d.Eval)
	addFormatFlag(fs, &format, "output format: text or json", "text", "json")
	return func(args []string) error {
		switch {
		case fs.NArg() != 1:
			return usageErr("doctor: name exactly one environment")
		case script == (state != ""):
			return usageErr("doctor: give --capture-script or --state DIR")
		}
		d.Env = fs.Arg(0)
		if script {
			text, err := d.Script()
			if err != nil {
				return printInvalid(stderr, err)
			}
			_, err = io.WriteString(stdout, text)
			return err
		}
		report, err := d.Run(state)
		if err != nil {
			return printInvalid(stderr, err)
		}
		if err := printer.Report(stdout, format, report); err != nil {
			return err
		}
		if report.Errors() {
			return &exitError{exitInvalid, fmt.Errorf("doctor: %s differs from what the bundle says", d.Env)}
		}
		if report.Incomplete() {
			return &exitError{exitFailure, fmt.Errorf("doctor: capture incomplete: %s was not checked (run the capture with credentials and a kubeconfig for the cluster)", d.Env)}
		}
		return nil
	}
}
