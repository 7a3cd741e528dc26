package main

import (
	"errors"
	"io"
	"strconv"
	"time"

	"github.com/spf13/pflag"

	"github.com/karpgen/karpgen/internal/action"
	"github.com/karpgen/karpgen/internal/printer"
)

// simulateCommand places workloads on an environment with Karpenter's own
// scheduler (run by karpgen-simulate) and prints where each lands. It
// writes nothing; it exits 1 when a pod stays Pending.
func simulateCommand(fs *pflag.FlagSet, stdout, stderr io.Writer) func(args []string) error {
	var sim action.Simulate
	var format, at string
	var disrupt bool
	fs.StringArrayVar(&sim.Workloads, "workloads", nil, "a workload manifest, or a folder of them, by `PATH` (required without --disruption; repeat it): Deployments, StatefulSets, ReplicaSets, DaemonSets, Jobs, CronJobs and Pods, the PersistentVolumes, claims and StorageClasses they use, and Lists of them")
	fs.StringVar(&sim.State, "state", "", "a capture of the environment's cluster (karpgen doctor --capture-script): its prices (the region's on-demand and spot prices as Karpenter reads them) price the nodes, and --disruption decides on its nodes and pods")
	fs.BoolVar(&disrupt, "disruption", false, "instead of placing workloads, say what Karpenter's disruption controller does with the nodes of --state's capture under the environment's pools: the command it starts now, with the $/h it saves, and why every other node stays")
	fs.StringVar(&at, "at", "", "with --disruption, decide at this `TIME` (RFC 3339, e.g. 2026-12-07T03:00:00+09:00) instead of when the capture was taken: budgets' schedules and consolidateAfter are read at it")
	fs.DurationVar(&sim.SimTimeout, "sim-timeout", 2*time.Minute, "how long the simulation may run")
	addProfilesFlag(fs, &sim.Dir)
	addEvalFlags(fs, &sim.Eval)
	addFormatFlag(fs, &format, "output format: text, markdown (a pull-request comment) or json", "text", "markdown", "json")
	return func(args []string) error {
		if fs.NArg() != 1 {
			return usageErr("simulate: name exactly one environment")
		}
		if sim.SimTimeout <= 0 {
			return usageErr("simulate: --sim-timeout must be a duration above zero, such as 2m, not %s", sim.SimTimeout)
		}
		sim.Env = fs.Arg(0)
		if disrupt {
			return simulateDisruption(&sim, at, format, stdout, stderr)
		}
		if at != "" {
			return usageErr("simulate: --at is a time of --disruption's")
		}
		if len(sim.Workloads) == 0 {
			return usageErr("simulate: name the workloads with --workloads PATH")
		}
		report, err := sim.Run()
		if err != nil {
			return printInvalid(stderr, err)
		}
		err = printer.Report(stdout, format, report)
		if err == nil && report.Pending() > 0 {
			return &exitError{exitFound, errors.New("simulate: pods stay Pending (above)")}
		}
		return err
	}
}

// simulateDisruption prints what Karpenter's disruption controller does
// with the captured cluster. It exits 0 whatever it finds: it is a view,
// not a check.
func simulateDisruption(sim *action.Simulate, at, format string, stdout, stderr io.Writer) error {
	switch {
	case sim.State == "":
		return usageErr("simulate: --disruption decides on a capture of the cluster: name it with --state DIR")
	case len(sim.Workloads) > 0:
		return usageErr("simulate: --disruption decides on the capture's pods, not --workloads")
	}
	if at != "" {
		t, err := time.Parse(time.RFC3339, at)
		if err != nil {
			return usageErr("simulate: --at %s: not an RFC 3339 time such as 2026-12-07T03:00:00+09:00", strconv.Quote(at))
		}
		sim.At = t
	}
	report, err := sim.Disrupt()
	if err != nil {
		return printInvalid(stderr, err)
	}
	return printer.Report(stdout, format, report)
}
