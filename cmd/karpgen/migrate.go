package main

import (
	"errors"
	"io"

	"github.com/karpgen/karpgen/internal/migrate"
	"github.com/karpgen/karpgen/internal/pipeline"
	"github.com/karpgen/karpgen/internal/printer"
	"github.com/karpgen/karpgen/internal/util/gcpolicy"
)

// migrateFlag names the flag of each option migrate.Options holds.
var migrateFlag = map[string]string{
	"OldGroups":  "--old-node-group",
	"Namespace":  "--autoscaler-namespace",
	"Deployment": "--autoscaler-deployment",
}

// runMigrate prints the runbook that brings a cluster scaled by Cluster
// Autoscaler over to the Karpenter its profile describes. It writes
// nothing.
func runMigrate(args []string, stdout, stderr io.Writer) error {
	var dir, from, format string
	var o migrate.Options
	var ev evalFlags
	var state stateFlag
	fs := newFlags("migrate", stdout, stderr)
	fs.StringVar(&from, "from", "", "what the cluster scales with now: cluster-autoscaler (required)")
	fs.StringArrayVar(&o.OldGroups, "old-node-group", nil, "a managed node group Cluster Autoscaler scales, which Karpenter replaces, by `NAME` (required; repeat it, in the order to empty them)")
	fs.StringVar(&o.Namespace, "autoscaler-namespace", "kube-system", "namespace of Cluster Autoscaler's Deployment")
	fs.StringVar(&o.Deployment, "autoscaler-deployment", "cluster-autoscaler", "name of Cluster Autoscaler's Deployment")
	addProfilesFlag(fs, &dir)
	addEvalFlags(fs, &ev)
	addFormatFlag(fs, &format, "output format: text, markdown or json", "text", "markdown", "json")
	state.add(fs)
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return usageErr("migrate: name exactly one environment")
	}
	if from != "cluster-autoscaler" {
		return usageErr("migrate: --from must be cluster-autoscaler (from Karpenter, plan the move with karpgen upgrade)")
	}
	res, err := pipeline.Check(pipeline.Options{Dir: dir, Envs: fs.Args(), Timeout: ev.timeout, Limits: &ev.limits, GC: gcpolicy.Fleet})
	if err != nil {
		return err
	}
	if len(res.Envs) == 0 {
		return printFindings(stderr, res.Findings)
	}
	if o.Live, err = state.read("migrate", res.Envs[0]); err != nil {
		return err
	}
	r, err := migrate.FromClusterAutoscaler(res.Envs[0], o)
	var refused *migrate.OptionError
	if errors.As(err, &refused) {
		return usageErr("migrate: %s: %s", migrateFlag[refused.Option], refused.Reason)
	}
	if err != nil {
		return err
	}
	switch format {
	case "json":
		return printer.JSON(stdout, r)
	case "markdown":
		return printer.MigrateMarkdown(stdout, r)
	}
	return printer.Migrate(stdout, r)
}
