// Package pipeline runs karpgen's main job in memory: load the profiles,
// apply the lint rules, and render a bundle per environment. It writes
// nothing; the commands decide what to do with the result.
package pipeline

import (
	"github.com/karpgen/karpgen/generators"
	"github.com/karpgen/karpgen/internal/diag"
	"github.com/karpgen/karpgen/internal/lint"
	"github.com/karpgen/karpgen/internal/load"
	"github.com/karpgen/karpgen/internal/profile"
)

// Result is the outcome for the environments asked for.
type Result struct {
	// Names are all environments of the profiles.
	Names []string
	// Findings are schema errors and lint findings, sorted by position.
	Findings []diag.Finding
	// Bundles are set only when no finding is an error, sorted by env.
	Bundles []*generators.Bundle
	// Fleet are the files of out/ itself; set when every environment was
	// rendered (none named), since they span them all.
	Fleet map[string][]byte
}

// Options say what to run.
type Options struct {
	Dir  string
	Envs []string
	// LintOnly skips rendering.
	LintOnly bool
}

// Run loads, checks and renders.
func Run(opts Options) (*Result, error) {
	l, err := load.New()
	if err != nil {
		return nil, err
	}
	loaded, err := l.Load(opts.Dir, opts.Envs)
	if err != nil {
		return nil, err
	}
	res := &Result{Names: loaded.Names, Findings: loaded.Findings}
	for i := range loaded.Envs {
		res.Findings = append(res.Findings, lint.Check(&loaded.Envs[i])...)
	}
	res.Findings = diag.Sort(res.Findings)
	if opts.LintOnly || diag.HasErrors(res.Findings) {
		return res, nil
	}
	var profiles []*profile.Profile
	for _, env := range loaded.Envs {
		b, err := generators.Render(env.Profile)
		if err != nil {
			return nil, err
		}
		res.Bundles = append(res.Bundles, b)
		profiles = append(profiles, env.Profile)
	}
	if len(opts.Envs) == 0 {
		if res.Fleet, err = generators.FleetFiles(profiles); err != nil {
			return nil, err
		}
	}
	return res, nil
}
