package main

import (
	"io"
	"time"

	"github.com/karpgen/karpgen/internal/diag"
	"github.com/karpgen/karpgen/internal/pipeline"
)

func runVet(args []string, stdout, stderr io.Writer) error {
	var dir, format string
	fs := newFlags("vet", stdout, stderr)
	addProfilesFlag(fs, &dir)
	var timeout time.Duration
	addTimeoutFlag(fs, &timeout)
	fs.StringVarP(&format, flagOutput, "o", "text", "output format: text or json")
	if err := parse(fs, args); err != nil {
		return err
	}
	if format != "text" && format != "json" {
		return usageErr("vet: -o must be text or json, not %q", format)
	}
	res, err := pipeline.Check(pipeline.Options{Dir: dir, Envs: fs.Args(), Timeout: timeout})
	if err != nil {
		return err
	}
	if format == "text" {
		return printFindings(stderr, res.Findings)
	}
	if err := diag.PrintJSON(stdout, relative(res.Findings)); err != nil {
		return err
	}
	if diag.HasErrors(res.Findings) {
		return errInvalid
	}
	return nil
}
