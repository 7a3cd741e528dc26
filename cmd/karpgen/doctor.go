package main

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/karpgen/karpgen/internal/diag"
	"github.com/karpgen/karpgen/internal/doctor"
	"github.com/karpgen/karpgen/internal/pipeline"
	"github.com/karpgen/karpgen/internal/printer"
	"github.com/karpgen/karpgen/internal/util/gcpolicy"
)

// runDoctor prints the capture script of an environment, or checks a
// captured folder against the bundle, offline.
func runDoctor(args []string, stdout, stderr io.Writer) error {
	var dir, state, format string
	var script bool
	var ev evalFlags
	fs := newFlags("doctor", stdout, stderr)
	fs.BoolVar(&script, "capture-script", false, "print the shell script that captures the account's and cluster's state")
	fs.StringVar(&state, "state", "", "check the captured folder")
	addProfilesFlag(fs, &dir)
	addEvalFlags(fs, &ev)
	addFormatFlag(fs, &format, "output format: text or json", "text", "json")
	if err := parse(fs, args); err != nil {
		return err
	}
	switch {
	case fs.NArg() != 1:
		return usageErr("doctor: name exactly one environment")
	case script == (state != ""):
		return usageErr("doctor: give --capture-script or --state DIR")
	}
	res, err := pipeline.Check(pipeline.Options{Dir: dir, Envs: fs.Args(), Timeout: ev.timeout, Limits: &ev.limits, GC: gcpolicy.Fleet})
	if err != nil {
		return err
	}
	if diag.HasErrors(res.Findings) {
		return printFindings(stderr, res.Findings)
	}
	e := res.Envs[0]
	if script {
		_, err := io.WriteString(stdout, doctor.Script(e))
		return err
	}
	info, err := os.Stat(state)
	if err != nil || !info.IsDir() {
		return fmt.Errorf("doctor: the state folder %s cannot be read: %v", state, err)
	}
	root, err := os.OpenRoot(state)
	if err != nil {
		return fmt.Errorf("doctor: %w", err)
	}
	defer root.Close()
	report, err := doctor.Run(e, doctor.NewState(root.FS(), state))
	var se *doctor.StateError
	if errors.As(err, &se) {
		return fmt.Errorf("doctor: %s/%w", state, err)
	}
	if err != nil {
		return err
	}
	if format == "json" {
		err = printer.JSON(stdout, report)
	} else {
		err = printer.Doctor(stdout, report)
	}
	if err != nil {
		return err
	}
	if report.Errors() {
		return &exitError{exitInvalid, fmt.Errorf("doctor: %s differs from what the bundle says", e.Name)}
	}
	if report.Incomplete() {
		return &exitError{exitFailure, fmt.Errorf("doctor: capture incomplete: %s was not checked (run the capture with credentials and a kubeconfig for the cluster)", e.Name)}
	}
	return nil
}
