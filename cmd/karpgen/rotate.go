package main

import (
	"errors"
	"io"

	"github.com/karpgen/karpgen/internal/printer"
	"github.com/karpgen/karpgen/internal/rotate"
)

// runRotate plans a change of a pool that would replace all its nodes at
// once as three changes of the profile: the new pool beside the old, the
// old capped, the old removed. The base is read as diff reads it; the
// profile is never edited.
func runRotate(args []string, stdout, stderr io.Writer) error {
	var dir, pool, next, format string
	var base baseFlags
	var ev evalFlags
	fs := newFlags("rotate", stdout, stderr)
	fs.StringVar(&pool, "pool", "", "the pool whose change replaces its nodes (required)")
	fs.StringVar(&next, "next", "", "name of the pool that takes over (default: <pool>-next)")
	base.add(fs)
	addProfilesFlag(fs, &dir)
	addEvalFlags(fs, &ev)
	addFormatFlag(fs, &format, "output format: text or json", "text", "json")
	var state stateFlag
	state.add(fs)
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return usageErr("rotate: name exactly one environment")
	}
	if pool == "" {
		return usageErr("rotate: --pool is required")
	}
	if base.count() != 1 {
		return usageErr("rotate: name the base once, with --base, --base-rev or --base-dir")
	}
	env := fs.Arg(0)
	baseFolder, baseName, closeBase, err := base.open(dir)
	if err != nil {
		return err
	}
	defer closeBase()
	if baseFolder.FS == nil {
		return usageErr("rotate: the base (%s) has no profiles", baseName)
	}
	baseRes, err := checkSide("rotate", "base profiles ("+baseName+")", &baseFolder, "", ev, stderr)
	if err != nil {
		return err
	}
	headRes, err := checkSide("rotate", "profiles ("+dir+")", nil, dir, ev, stderr)
	if err != nil {
		return err
	}
	b, h := envNamed(baseRes.Envs, env), envNamed(headRes.Envs, env)
	if b == nil || h == nil {
		return usageErr("rotate: environment %q is not on both sides", env)
	}
	plan, err := rotate.New(b, h, pool, next)
	var refused *rotate.Error
	if errors.As(err, &refused) {
		return usageErr("rotate: %s", refused.Msg)
	}
	if err != nil {
		return err
	}
	cluster, err := state.read("rotate", h)
	if err != nil {
		return err
	}
	plan.Read(cluster)
	if format == "json" {
		return printer.JSON(stdout, plan)
	}
	return printer.Rotate(stdout, plan)
}
