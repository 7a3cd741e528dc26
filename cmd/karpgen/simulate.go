package main

import (
	"errors"
	"io"
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
	var format string
	fs.StringArrayVar(&sim.Workloads, "workloads", nil, "a workload manifest, or a folder of them, by `PATH` (required; repeat it): Deployments, StatefulSets, ReplicaSets, DaemonSets, Jobs, CronJobs and Pods, the PersistentVolumes, claims and StorageClasses they use, and Lists of them")
	fs.StringVar(&sim.State, "state", "", "price the nodes from this capture of the environment's cluster (karpgen doctor --capture-script): the region's on-demand and spot prices as Karpenter reads them")
	fs.DurationVar(&sim.SimTimeout, "sim-timeout", 2*time.Minute, "how long the simulation may run")
	addProfilesFlag(fs, &sim.Dir)
	addEvalFlags(fs, &sim.Eval)
	addFormatFlag(fs, &format, "output format: text, markdown (a pull-request comment) or json", "text", "markdown", "json")
	return func(args []string) error {
		if fs.NArg() != 1 {
			return usageErr("simulate: name exactly one environment")
		}
		if len(sim.Workloads) == 0 {
			return usageErr("simulate: name the workloads with --workloads PATH")
		}
		if sim.SimTimeout <= 0 {
			return usageErr("simulate: --sim-timeout must be a duration above zero, such as 2m, not %s", sim.SimTimeout)
		}
		sim.Env = fs.Arg(0)
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
