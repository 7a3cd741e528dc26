package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/spf13/pflag"

	"github.com/karpgen/karpgen/internal/action"
	"github.com/karpgen/karpgen/internal/printer"
)

// upgradeCommand plans the move of one environment to another Karpenter
// version, and with --write puts the plan and what it applies in
// out/<env>/upgrade/<to>/. A plan with blockers exits 1 and writes
// nothing. The profile is never edited.
func upgradeCommand(fs *pflag.FlagSet, stdout, stderr io.Writer) func(args []string) error {
	var u action.Upgrade
	var format string
	var out action.Out
	var write bool
	fs.StringVar(&u.Options.To, "to", "", "Karpenter version to move to, or \"lts\" for the newest long-term-support minor (required)")
	fs.StringVar(&u.Options.From, "from", "", "Karpenter version the cluster runs (default: the profile's; 0.31 to 0.37 for the move to v1)")
	fs.StringVar(&u.Options.KubernetesTo, "kubernetes-to", "", "move Kubernetes to this minor too, one minor at a time between the Karpenter hops")
	addProfilesFlag(fs, &u.Dir)
	addEvalFlags(fs, &u.Eval)
	addOutFlags(fs, &out, "folder of the rendered bundles; --write puts the plan in <out>/<env>/upgrade/<to>/")
	addFormatFlag(fs, &format, "output format: text, markdown or json", "text", "markdown", "json")
	fs.BoolVar(&write, "write", false, "write the plan, the transition policies and the target's Helm values and IAM")
	addStateFlag(fs, &u.State)
	return func(args []string) error {
		if fs.NArg() != 1 {
			return usageErr("upgrade: name exactly one environment")
		}
		if u.Options.To == "" {
			return usageErr("upgrade: --to VERSION is required")
		}
		if write {
			if err := out.Separate("upgrade", u.Dir); err != nil {
				return err
			}
		}
		// The profile may already be refused at the version it names: the
		// plan reports what the target refuses as blockers.
		u.Env = fs.Arg(0)
		plan, err := u.Run()
		var refused *action.OptionError
		if errors.As(err, &refused) {
			flag := map[string]string{"From": "--from", "To": "--to", "KubernetesTo": "--kubernetes-to"}[refused.Option]
			if refused.Value != "" {
				flag += " " + refused.Value
			}
			return usageErr("upgrade: %s: %s", flag, refused.Reason)
		}
		if err != nil {
			return printInvalid(stderr, err)
		}
		if err := printer.Report(stdout, format, plan); err != nil {
			return err
		}
		if plan.Blocked() {
			return &exitError{exitFound, fmt.Errorf("upgrade: %d blocker(s): nothing can start until they are resolved; nothing was written", len(plan.Blockers))}
		}
		if !write {
			return nil
		}
		return action.WritePlan(plan, out, stderr)
	}
}
