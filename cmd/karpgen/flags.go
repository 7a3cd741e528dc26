package main

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/karpgen/karpgen/internal/action"
)

// Flag names shared by the commands.
const (
	flagProfiles = "profiles"
	flagOut      = "out"
	flagCheck    = "check"
	flagOutput   = "output"
)

func addProfilesFlag(fs *pflag.FlagSet, dir *string) {
	fs.StringVar(dir, flagProfiles, "profiles", "folder of the CUE profiles package")
}

// defaultEvalTimeout bounds the evaluation of a profiles folder: a
// profile is code, and a hostile one may never finish.
const defaultEvalTimeout = time.Minute

// evalFlags bound the evaluation of the profiles: its time, and what
// the profiles may expand to.
type evalFlags = action.Eval

func addEvalFlags(fs *pflag.FlagSet, ev *evalFlags) {
	fs.DurationVar(&ev.Timeout, "eval-timeout", defaultEvalTimeout, "give up evaluating the profiles after this long")
	fs.IntVar(&ev.Limits.Environments, action.FlagMaxEnvironments, action.DefaultMaxEnvironments, "refuse profiles that define more environments than this")
	fs.IntVar(&ev.Limits.Objects, action.FlagMaxObjects, action.DefaultMaxObjects, "refuse an environment with more node groups, classes, pools, overlays and buffers than this")
}

// formatValue is -o: the output formats a command prints. Another is
// refused while the flags are parsed, with the formats it takes.
type formatValue struct {
	p       *string
	allowed []string
}

// addFormatFlag adds -o/--output to a command: the first format is the
// default; usage is its help line.
func addFormatFlag(fs *pflag.FlagSet, p *string, usage string, allowed ...string) {
	*p = allowed[0]
	fs.VarP(&formatValue{p, allowed}, flagOutput, "o", usage)
}

func (f *formatValue) String() string { return *f.p }
func (f *formatValue) Type() string   { return "string" }
func (f *formatValue) Set(s string) error {
	if !slices.Contains(f.allowed, s) {
		return &formatError{f.allowed, s}
	}
	*f.p = s
	return nil
}

// formatError is a format a command does not print.
type formatError struct {
	allowed []string
	got     string
}

func (e *formatError) Error() string {
	list := strings.Join(e.allowed[:len(e.allowed)-1], ", ") + " or " + e.allowed[len(e.allowed)-1]
	return fmt.Sprintf("-o must be %s, not %q", list, e.got)
}
