package main

import (
	"io"
	"time"

	"github.com/spf13/pflag"

	"github.com/karpgen/karpgen/internal/action"
	"github.com/karpgen/karpgen/internal/util/progress"
)

func renderCommand(fs *pflag.FlagSet, stdout, stderr io.Writer) func(args []string) error {
	start := time.Now()
	r := action.Render{Stdout: stdout, Stderr: stderr}
	var showProgress bool
	addProfilesFlag(fs, &r.Dir)
	addEvalFlags(fs, &r.Eval)
	addOutFlags(fs, &r.Out, "folder of the rendered bundles, one folder per environment")
	fs.BoolVar(&r.Check, flagCheck, false, "render in memory, print a diff against --out and exit 1 when anything differs; write nothing")
	fs.BoolVar(&r.DeleteForeign, "delete-foreign", false, "delete files in out/<env>/ that karpgen did not write (by default they stop the render)")
	addStateFlag(fs, &r.State)
	fs.BoolVar(&showProgress, "progress", false, "show evaluated and rendered environments (done/total) on stderr even when it is not a terminal (by default only on a terminal, never in CI)")
	return func(args []string) error {
		r.Envs = fs.Args()
		r.Meter = new(progress.Meter)
		p := newProgress(stderr, showProgress, start)
		p.watch(r.Meter)
		res, err := r.Load()
		p.end()
		if err != nil {
			return err
		}
		if err := printFindings(stderr, res.Findings); err != nil {
			return err
		}
		p.watch(r.Meter)
		defer p.end()
		// Every profile is valid here.
		return r.Write(res)
	}
}
