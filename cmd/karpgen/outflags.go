package main

import (
	"time"

	"github.com/spf13/pflag"

	"github.com/karpgen/karpgen/internal/action"
)

// addOutFlags declares the flags of every command that writes into out/
// (render, upgrade --write): the folder, and how long to wait for another
// writer's lock on it.
func addOutFlags(fs *pflag.FlagSet, o *action.Out, usage string) {
	fs.StringVar(&o.Dir, flagOut, "out", usage)
	fs.DurationVar(&o.LockWait, "lock-wait", 30*time.Second, "how long to wait for another karpgen writing the same --out")
}
