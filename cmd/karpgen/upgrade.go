package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/karpgen/karpgen/internal/output"
	"github.com/karpgen/karpgen/internal/pipeline"
	"github.com/karpgen/karpgen/internal/upgrade"
	"github.com/karpgen/karpgen/internal/util/gcpolicy"
)

// runUpgrade plans the move of one environment to another Karpenter
// version, and with --write puts the plan and what it applies in
// out/<env>/upgrade/<to>/. A plan with blockers exits 1 and writes
// nothing. The profile is never edited.
func runUpgrade(args []string, stdout, stderr io.Writer) error {
	var dir, to, from, kubeTo, format string
	var out outFlags
	var write bool
	var ev evalFlags
	var state stateFlag
	fs := newFlags("upgrade", stdout, stderr)
	fs.StringVar(&to, "to", "", "Karpenter version to move to, or \"lts\" for the newest long-term-support minor (required)")
	fs.StringVar(&from, "from", "", "Karpenter version the cluster runs (default: the profile's; 0.31 to 0.37 for the move to v1)")
	fs.StringVar(&kubeTo, "kubernetes-to", "", "move Kubernetes to this minor too, one minor at a time between the Karpenter hops")
	addProfilesFlag(fs, &dir)
	addEvalFlags(fs, &ev)
	out.add(fs, "folder of the rendered bundles; --write puts the plan in <out>/<env>/upgrade/<to>/")
	addFormatFlag(fs, &format, "output format: text, markdown or json", "text", "markdown", "json")
	fs.BoolVar(&write, "write", false, "write the plan, the transition policies and the target's Helm values and IAM")
	state.add(fs)
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return usageErr("upgrade: name exactly one environment")
	}
	if to == "" {
		return usageErr("upgrade: --to VERSION is required")
	}
	if write {
		if err := out.separate("upgrade", dir); err != nil {
			return err
		}
	}
	// The profile may already be refused at the version it names: the
	// plan reports what the target refuses as blockers.
	res, err := pipeline.Check(pipeline.Options{Dir: dir, Envs: fs.Args(), Timeout: ev.timeout, Limits: &ev.limits, GC: gcpolicy.Fleet, KeepInvalid: true})
	if err != nil {
		return err
	}
	if len(res.Envs) == 0 {
		return printFindings(stderr, res.Findings)
	}
	cluster, err := state.read("upgrade", res.Envs[0])
	if err != nil {
		return err
	}
	plan, err := upgrade.New(res.Envs[0], upgrade.Options{From: from, To: to, KubernetesTo: kubeTo, Live: cluster})
	var refused *upgrade.OptionError
	if errors.As(err, &refused) {
		flag := map[string]string{"From": "--from", "To": "--to", "KubernetesTo": "--kubernetes-to"}[refused.Option]
		if refused.Value != "" {
			flag += " " + refused.Value
		}
		return usageErr("upgrade: %s: %s", flag, refused.Reason)
	}
	if err != nil {
		return err
	}
	var text []byte
	switch format {
	case "json":
		if text, err = plan.JSON(); err != nil {
			return err
		}
	case "markdown":
		text = plan.Markdown()
	default:
		text = plan.Text()
	}
	if _, err := stdout.Write(text); err != nil {
		return err
	}
	if plan.Blocked() {
		return &exitError{exitFound, fmt.Errorf("upgrade: %d blocker(s): nothing can start until they are resolved; nothing was written", len(plan.Blockers))}
	}
	if !write {
		return nil
	}
	b, err := plan.Bundle()
	if err != nil {
		return err
	}
	disk, err := out.open(output.DiskOptions{Stdout: stderr, Stderr: stderr})
	if err != nil {
		return err
	}
	defer disk.Close()
	if err := disk.Put(b); err != nil {
		return err
	}
	return disk.Finish(nil)
}
