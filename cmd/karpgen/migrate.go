package main

import (
	"errors"
	"io"

	"github.com/spf13/pflag"

	"github.com/karpgen/karpgen/internal/action"
	"github.com/karpgen/karpgen/internal/printer"
)

// migrateFlag names the flag of each option migrate.Options holds.
var migrateFlag = map[string]string{
	"OldGroups":  "--old-node-group",
	"Namespace":  "--autoscaler-namespace",
	"Deployment": "--autoscaler-deployment",
}

// migrateCommand prints the runbook that brings a cluster scaled by Cluster
// Autoscaler over to the Karpenter its profile describes. It writes
// nothing.
func migrateCommand(fs *pflag.FlagSet, stdout, stderr io.Writer) func(args []string) error {
	var m action.Migrate
	var from, format string
	o := &m.Options
	fs.StringVar(&from, "from", "", "what the cluster scales with now: cluster-autoscaler (required)")
	fs.StringArrayVar(&o.OldGroups, "old-node-group", nil, "a managed node group Cluster Autoscaler scales, which Karpenter replaces, by `NAME` (required; repeat it, in the order to empty them)")
	fs.StringVar(&o.Namespace, "autoscaler-namespace", "kube-system", "namespace of Cluster Autoscaler's Deployment")
	fs.StringVar(&o.Deployment, "autoscaler-deployment", "cluster-autoscaler", "name of Cluster Autoscaler's Deployment")
	addProfilesFlag(fs, &m.Dir)
	addEvalFlags(fs, &m.Eval)
	addFormatFlag(fs, &format, "output format: text, markdown or json", "text", "markdown", "json")
	addStateFlag(fs, &m.State)
	return func(args []string) error {
		if fs.NArg() != 1 {
			return usageErr("migrate: name exactly one environment")
		}
		if from != "cluster-autoscaler" {
			return usageErr("migrate: --from must be cluster-autoscaler (from Karpenter, plan the move with karpgen upgrade)")
		}
		m.Env = fs.Arg(0)
		r, err := m.Run()
		var refused *action.OptionError
		if errors.As(err, &refused) {
			return usageErr("migrate: %s: %s", migrateFlag[refused.Option], refused.Reason)
		}
		if err != nil {
			return printInvalid(stderr, err)
		}
		return printer.Report(stdout, format, r)
	}
}
