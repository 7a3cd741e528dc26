package main

import "github.com/spf13/pflag"

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
