package main

import "github.com/spf13/pflag"

// addStateFlag declares --state DIR of the plans: the folder doctor's
// capture script wrote, which they plan from.
func addStateFlag(fs *pflag.FlagSet, dir *string) {
	fs.StringVar(dir, "state", "", "plan from what this capture (karpgen doctor --capture-script) says the account and cluster hold")
}
