package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/karpgen/karpgen/generators"
	"github.com/karpgen/karpgen/internal/model"
	"github.com/karpgen/karpgen/internal/pipeline"
	"github.com/karpgen/karpgen/internal/printer"
	"github.com/karpgen/karpgen/internal/simulate"
	"github.com/karpgen/karpgen/internal/util/gcpolicy"
)

// runSimulate places workloads on an environment with Karpenter's own
// scheduler (run by karpgen-simulate) and prints where each lands. It
// writes nothing; it exits 1 when a pod stays Pending.
func runSimulate(args []string, stdout, stderr io.Writer) error {
	var dir, format string
	var workloads []string
	var timeout time.Duration
	var ev evalFlags
	fs := newFlags("simulate", stdout, stderr)
	fs.StringArrayVar(&workloads, "workloads", nil, "a workload manifest, or a folder of them, by `PATH` (required; repeat it): Deployments, StatefulSets, ReplicaSets, DaemonSets, Jobs, CronJobs and Pods, the PersistentVolumes, claims and StorageClasses they use, and Lists of them")
	fs.DurationVar(&timeout, "sim-timeout", 2*time.Minute, "how long the simulation may run")
	addProfilesFlag(fs, &dir)
	addEvalFlags(fs, &ev)
	addFormatFlag(fs, &format, "output format: text, markdown (a pull-request comment) or json", "text", "markdown", "json")
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return usageErr("simulate: name exactly one environment")
	}
	if len(workloads) == 0 {
		return usageErr("simulate: name the workloads with --workloads PATH")
	}
	if timeout <= 0 {
		return usageErr("simulate: --sim-timeout must be a duration above zero, such as 2m, not %s", timeout)
	}
	helper, err := simulate.FindHelper()
	if err != nil {
		return &exitError{exitFailure, err}
	}
	res, err := pipeline.Check(pipeline.Options{Dir: dir, Envs: fs.Args(), Timeout: ev.timeout, Limits: &ev.limits, GC: gcpolicy.Fleet})
	if err != nil {
		return err
	}
	if len(res.Envs) == 0 {
		return printFindings(stderr, res.Findings)
	}
	// The time given covers reading the workloads and the simulation.
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	ws, err := simulate.ReadWorkloads(ctx, workloads)
	if err != nil {
		return &exitError{exitFailure, fmt.Errorf("simulate: %w", err)}
	}
	report, err := simulateEnv(ctx, res.Envs[0], helper, ws)
	if err != nil {
		return &exitError{exitFailure, fmt.Errorf("simulate: %w", err)}
	}
	switch format {
	case "json":
		err = printer.JSON(stdout, report)
	case "markdown":
		report.Markdown(stdout)
	default:
		report.Text(stdout)
	}
	if err == nil && report.Pending() > 0 {
		return &exitError{exitFound, errors.New("simulate: pods stay Pending (above)")}
	}
	return err
}

// workloadsTimeout is what vet --workloads and diff --workloads give the
// reading of the workloads and all their simulations.
const workloadsTimeout = 2 * time.Minute

// simulateEnv renders the environment and places the workloads on it
// within ctx's deadline.
func simulateEnv(ctx context.Context, e *model.Env, helper string, ws []simulate.Workload) (*simulate.Report, error) {
	b, err := generators.Render(e)
	if err != nil {
		return nil, err
	}
	req, err := simulate.NewRequest(e, b.Files[model.FileNodePools], ws)
	if err != nil {
		return nil, err
	}
	resp, err := simulate.Run(ctx, helper, req)
	if err != nil {
		return nil, err
	}
	return simulate.NewReport(e.Name, e.Profile.Cluster.Region, req, resp), nil
}
