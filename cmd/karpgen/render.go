package main

import (
	"io"
	"time"

	"github.com/karpgen/karpgen/internal/live"
	"github.com/karpgen/karpgen/internal/output"
	"github.com/karpgen/karpgen/internal/pipeline"
	"github.com/karpgen/karpgen/internal/upgrade"
	"github.com/karpgen/karpgen/internal/util/gcpolicy"
	"github.com/karpgen/karpgen/internal/util/progress"
)

func runRender(args []string, stdout, stderr io.Writer) error {
	start := time.Now()
	var dir string
	var out outFlags
	var check, deleteForeign, showProgress bool
	fs := newFlags("render", stdout, stderr)
	addProfilesFlag(fs, &dir)
	var ev evalFlags
	addEvalFlags(fs, &ev)
	out.add(fs, "folder of the rendered bundles, one folder per environment")
	fs.BoolVar(&check, flagCheck, false, "render in memory, print a diff against --out and exit 1 when anything differs; write nothing")
	fs.BoolVar(&deleteForeign, "delete-foreign", false, "delete files in out/<env>/ that karpgen did not write (by default they stop the render)")
	var state stateFlag
	state.add(fs)
	fs.BoolVar(&showProgress, "progress", false, "show evaluated and rendered environments (done/total) on stderr even when it is not a terminal (by default only on a terminal, never in CI)")
	if err := parse(fs, args); err != nil {
		return err
	}
	if err := out.separate("render", dir); err != nil {
		return err
	}
	if state.dir != "" && fs.NArg() != 1 {
		return usageErr("render: --state is one environment's capture: name exactly that environment")
	}
	m := new(progress.Meter)
	p := newProgress(stderr, showProgress, start)
	p.watch(m)
	res, err := pipeline.Check(pipeline.Options{Dir: dir, Envs: fs.Args(), Timeout: ev.timeout, Limits: &ev.limits, GC: gcpolicy.Fleet, Meter: m})
	p.end()
	if err != nil {
		return err
	}
	if err := printFindings(stderr, res.Findings); err != nil {
		return err
	}
	if state.dir != "" && len(res.Envs) == 1 {
		c, err := state.read("render", res.Envs[0])
		if err != nil {
			return err
		}
		res.Live = map[string]*live.Cluster{res.Envs[0].Name: c}
	}
	p.watch(m)
	defer p.end()
	if check {
		return res.Render(&output.Check{Dir: out.dir, Stdout: stdout, Names: res.Names, Replan: upgrade.Replanner(res.Envs)})
	}
	// Every profile is valid here. The sink stages every bundle before it
	// changes anything in out/, and puts back what it replaced when a
	// later step fails.
	opts := output.DiskOptions{DeleteForeign: deleteForeign, Stdout: stdout, Stderr: stderr, Replan: upgrade.Replanner(res.Envs)}
	if res.All {
		opts.Names = res.Names
	}
	disk, err := out.open(opts)
	if err != nil {
		return err
	}
	defer disk.Close()
	return res.Render(disk)
}
