package main

import (
	"io"

	"github.com/spf13/pflag"

	"github.com/karpgen/karpgen/internal/action"
	"github.com/karpgen/karpgen/internal/printer"
)

// rotateCommand plans a change of a pool that would replace all its nodes at
// once as three changes of the profile: the new pool beside the old, the
// old capped, the old removed. The base is read as diff reads it; the
// profile is never edited.
func rotateCommand(fs *pflag.FlagSet, stdout, stderr io.Writer) func(args []string) error {
	var r action.Rotate
	var format string
	fs.StringVar(&r.Pool, "pool", "", "the pool whose change replaces its nodes (required)")
	fs.StringVar(&r.Next, "next", "", "name of the pool that takes over (default: <pool>-next)")
	addBaseFlags(fs, &r.Base)
	addProfilesFlag(fs, &r.Dir)
	addEvalFlags(fs, &r.Eval)
	addFormatFlag(fs, &format, "output format: text or json", "text", "json")
	addStateFlag(fs, &r.State)
	return func(args []string) error {
		if fs.NArg() != 1 {
			return usageErr("rotate: name exactly one environment")
		}
		r.Env = fs.Arg(0)
		plan, err := r.Run()
		if err != nil {
			return printInvalid(stderr, err)
		}
		return printer.Report(stdout, format, plan)
	}
}
