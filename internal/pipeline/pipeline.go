// Package pipeline runs karpgen's main job in memory: load the profiles,
// apply the lint rules, and render a bundle per environment. It writes
// nothing; the commands decide what to do with the result.
package pipeline

import (
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/karpgen/karpgen/generators"
	"github.com/karpgen/karpgen/internal/diag"
	"github.com/karpgen/karpgen/internal/lint"
	"github.com/karpgen/karpgen/internal/load"
	"github.com/karpgen/karpgen/internal/profile"
)

// Options say what to run.
type Options struct {
	Dir  string
	Envs []string
}

// Result is the checked state of the environments asked for.
type Result struct {
	// Names are all environments of the profiles.
	Names []string
	// Findings are schema errors and lint findings, sorted by position.
	Findings []diag.Finding
	// Profiles are the environments asked for, sorted by name; nil when a
	// finding is an error.
	Profiles []*profile.Profile
	// All says every environment was asked for.
	All bool
}

// Check loads the profiles and applies the lint rules.
func Check(opts Options) (*Result, error) {
	loaded, err := load.Load(opts.Dir, opts.Envs, func(e *load.Env) []diag.Finding { return lint.Check(e) })
	if err != nil {
		return nil, err
	}
	res := &Result{Names: loaded.Names, Findings: diag.Sort(loaded.Findings), All: len(opts.Envs) == 0}
	if diag.HasErrors(res.Findings) {
		return res, nil
	}
	for _, e := range loaded.Envs {
		res.Profiles = append(res.Profiles, e.Profile)
	}
	return res, nil
}

// Render renders every profile in parallel and hands each bundle to fn,
// from the rendering goroutines (fn must be safe for concurrent use), with
// its index in Profiles. Bundles are dropped once fn returns, so memory
// stays flat over a fleet. The first error stops it.
func (r *Result) Render(fn func(i int, b *generators.Bundle) error) error {
	n := len(r.Profiles)
	workers := min(runtime.GOMAXPROCS(0), n)
	var next atomic.Int64
	errs := make([]error, workers)
	var failed atomic.Bool
	var wg sync.WaitGroup
	for k := 0; k < workers; k++ {
		wg.Add(1)
		go func(k int) {
			defer wg.Done()
			for !failed.Load() {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				b, err := generators.Render(r.Profiles[i])
				if err == nil {
					err = fn(i, b)
				}
				if err != nil {
					errs[k] = err
					failed.Store(true)
					return
				}
			}
		}(k)
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// Fleet returns the files of out/ itself, which span every environment;
// nil unless every environment was asked for.
func (r *Result) Fleet() (map[string][]byte, error) {
	if !r.All {
		return nil, nil
	}
	return generators.FleetFiles(r.Profiles)
}

// Bundles renders every profile and returns the bundles, in order.
func (r *Result) Bundles() ([]*generators.Bundle, error) {
	out := make([]*generators.Bundle, len(r.Profiles))
	err := r.Render(func(i int, b *generators.Bundle) error {
		out[i] = b
		return nil
	})
	return out, err
}
