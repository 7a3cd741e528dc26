package main

import (
	"errors"
	"io"

	"github.com/karpgen/karpgen/internal/pipeline"
	"github.com/karpgen/karpgen/internal/printer"
	"github.com/karpgen/karpgen/internal/promote"
	"github.com/karpgen/karpgen/internal/util/gcpolicy"
)

// runPromote plans moving the AMI releases one environment runs to the
// next, as a change of the next one's profile, with what it replaces and
// when. The profile is never edited.
func runPromote(args []string, stdout, stderr io.Writer) error {
	var dir, from, to, format string
	var classes []string
	var ev evalFlags
	var state stateFlag
	fs := newFlags("promote", stdout, stderr)
	fs.StringVar(&from, "from", "", "environment whose pinned AMI releases are tested (required)")
	fs.StringVar(&to, "to", "", "environment to move them to (required)")
	fs.StringArrayVar(&classes, "class", nil, "node classes to promote, by `NAME` (default: every class the two share)")
	addProfilesFlag(fs, &dir)
	addEvalFlags(fs, &ev)
	addFormatFlag(fs, &format, "output format: text, markdown or json", "text", "markdown", "json")
	state.add(fs)
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 0 {
		return usageErr("promote: name the environments with --from and --to")
	}
	if from == "" || to == "" || from == to {
		return usageErr("promote: --from and --to name two environments")
	}
	res, err := pipeline.Check(pipeline.Options{Dir: dir, Envs: []string{from, to}, Timeout: ev.timeout, Limits: &ev.limits, GC: gcpolicy.Fleet})
	if err != nil {
		return err
	}
	if len(res.Envs) != 2 {
		return printFindings(stderr, res.Findings)
	}
	envs := map[string]int{res.Envs[0].Name: 0, res.Envs[1].Name: 1}
	plan, err := promote.New(res.Envs[envs[from]], res.Envs[envs[to]], classes)
	var refused *promote.Error
	if errors.As(err, &refused) {
		return usageErr("promote: %s", refused.Msg)
	}
	if err != nil {
		return err
	}
	// The capture is the cluster of the environment promoted to.
	cluster, err := state.read("promote", res.Envs[envs[to]])
	if err != nil {
		return err
	}
	plan.Read(cluster)
	switch format {
	case "json":
		return printer.JSON(stdout, plan)
	case "markdown":
		return printer.PromoteMarkdown(stdout, plan)
	}
	return printer.Promote(stdout, plan)
}
