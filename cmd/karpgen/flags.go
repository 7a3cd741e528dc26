package main

import (
	"time"

	"github.com/spf13/pflag"

	"github.com/karpgen/karpgen/internal/load"
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
type evalFlags struct {
	timeout time.Duration
	limits  load.Limits
}

func addEvalFlags(fs *pflag.FlagSet, ev *evalFlags) {
	fs.DurationVar(&ev.timeout, "eval-timeout", defaultEvalTimeout, "give up evaluating the profiles after this long")
	fs.IntVar(&ev.limits.Environments, load.FlagMaxEnvironments, load.DefaultMaxEnvironments, "refuse profiles that define more environments than this")
	fs.IntVar(&ev.limits.Objects, load.FlagMaxObjects, load.DefaultMaxObjects, "refuse an environment with more node groups, classes, pools, overlays and buffers than this")
}
