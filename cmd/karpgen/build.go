package main

import (
	"errors"

	"io"
	"path/filepath"

	"github.com/spf13/pflag"

	"github.com/karpgen/karpgen/internal/diag"
	"github.com/karpgen/karpgen/internal/output"
	"github.com/karpgen/karpgen/internal/pipeline"
	"github.com/karpgen/karpgen/internal/util/gcpolicy"
)

// runBuild prints the Kubernetes objects of one environment as a single
// YAML stream: what Argo CD applies. It is the bundle's kustomization,
// with the overlay in <profiles>/overlays/<env>/ on top when there is one.
// Only that environment is evaluated. The overlay is read from the
// profiles folder only and may name nothing remote; the result is checked
// again (lint.CheckBuilt) before anything is printed. Warnings are not
// printed; any error and an empty result fail with nothing on stdout.
func runBuild(args []string, stdout, stderr io.Writer) error {
	var dir string
	var allow []string
	// Argo CD applies what build prints: even its help goes to stderr.
	fs := newFlags("build", stderr, stderr)
	addProfilesFlag(fs, &dir)
	fs.StringSliceVar(&allow, "allow-kinds", nil, "kinds (Kind or group/Kind) an overlay may add, remove or rename objects of; by default it may only patch, label and annotate karpgen's objects")
	var ev evalFlags
	addEvalFlags(fs, &ev)
	if err := parse(fs, args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			// Argo CD applies what build prints: help is never a success.
			return usageErr("build: prints the objects of one environment; nothing else")
		}
		return err
	}
	if fs.NArg() != 1 {
		return usageErr("build: name exactly one environment")
	}
	res, err := pipeline.Check(pipeline.Options{Dir: dir, Envs: fs.Args(), Timeout: ev.timeout, Limits: &ev.limits, GC: gcpolicy.Fleet})
	if err != nil {
		return err
	}
	if diag.HasErrors(res.Findings) {
		return printFindings(stderr, res.Findings)
	}
	return res.Render(&output.Build{
		Overlays:   filepath.Join(dir, "overlays"),
		AllowKinds: allow,
		Stdout:     stdout,
		Env:        res.Envs[0],
	})
}
