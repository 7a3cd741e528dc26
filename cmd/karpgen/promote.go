package main

import (
	"io"

	"github.com/spf13/pflag"

	"github.com/karpgen/karpgen/internal/action"
	"github.com/karpgen/karpgen/internal/printer"
)

// promoteCommand plans moving the AMI releases one environment runs to the
// next, as a change of the next one's profile, with what it replaces and
// when. The profile is never edited.
func promoteCommand(fs *pflag.FlagSet, stdout, stderr io.Writer) func(args []string) error {
	var p action.Promote
	var format string
	fs.StringVar(&p.From, "from", "", "environment whose pinned AMI releases are tested (required)")
	fs.StringVar(&p.To, "to", "", "environment to move them to (required)")
	fs.StringArrayVar(&p.Classes, "class", nil, "node classes to promote, by `NAME` (default: every class the two share)")
	addProfilesFlag(fs, &p.Dir)
	addEvalFlags(fs, &p.Eval)
	addFormatFlag(fs, &format, "output format: text, markdown or json", "text", "markdown", "json")
	addStateFlag(fs, &p.State)
	return func(args []string) error {
		if fs.NArg() != 0 {
			return usageErr("promote: name the environments with --from and --to")
		}
		plan, err := p.Run()
		if err != nil {
			return printInvalid(stderr, err)
		}
		return printer.Report(stdout, format, plan)
	}
}
