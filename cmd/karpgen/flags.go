package main

import (
	"time"

	"github.com/spf13/pflag"
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

func addTimeoutFlag(fs *pflag.FlagSet, d *time.Duration) {
	fs.DurationVar(d, "eval-timeout", defaultEvalTimeout, "give up evaluating the profiles after this long")
}
