package action

// The pipeline is karpgen's main job in memory: load the profiles,
// resolve each environment once, apply the lint rules, and render a bundle
// per environment into a sink, or compare two sides of the profiles
// (karpgen diff). It writes nothing itself; the sink decides what a
// bundle becomes (files on disk, a diff, a kustomize build, a fleet
// comparison).

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/karpgen/karpgen/generators"
	"github.com/karpgen/karpgen/internal/diag"
	"github.com/karpgen/karpgen/internal/doctor/live"
	"github.com/karpgen/karpgen/internal/envcheck"
	"github.com/karpgen/karpgen/internal/load"
	"github.com/karpgen/karpgen/internal/model"
	"github.com/karpgen/karpgen/internal/output"
	"github.com/karpgen/karpgen/internal/printer"
	"github.com/karpgen/karpgen/internal/util/gcpolicy"
	"github.com/karpgen/karpgen/internal/util/progress"
)

// Options say what to run.
type Options struct {
	// Dir is the profiles folder on disk, read through load.Open; Folder,
	// when set, is used instead.
	Dir    string
	Folder *load.Folder
	// Envs are the environments asked for; all when empty.
	Envs []string
	// Timeout bounds the evaluation of the profiles; 0 is no bound.
	Timeout time.Duration
	// Limits bound what the profiles may expand to (defaults when nil).
	Limits *load.Limits
	// Today (YYYY-MM-DD) turns on the checks that depend on the day:
	// vet sets it, render and build leave it "" so their output is the
	// same every day.
	Today string
	// GC is the collector's policy, applied once the environments are
	// counted.
	GC gcpolicy.Policy
	// Meter, when set, counts the environments evaluated, then (by
	// Result.Render) the bundles rendered.
	Meter *progress.Meter
	// KeepInvalid keeps, in Envs, the environments that decoded even when
	// the rule catalog refuses them (the upgrade planner reports those
	// findings as blockers); schema errors still leave Envs empty.
	KeepInvalid bool
	// RenderAhead is set by the commands that render what they check
	// (render, build): a lone environment is then rendered beside its
	// rules (envcheck.Checker.Rendered).
	RenderAhead bool
}

// Result is the checked state of the environments asked for.
type Result struct {
	// Names are all environments of the profiles.
	Names []string
	// Findings are schema errors and lint findings, sorted by position.
	Findings []diag.Finding
	// Envs are the environments asked for, resolved and sorted by name;
	// nil when a finding is an error.
	Envs []*model.Env
	// All says every environment was asked for.
	All bool
	// Meter, when set, counts the bundles the sink took.
	Meter *progress.Meter
	// Live are captures by environment (render --state): each bundle's
	// SUMMARY.md previews what its deploy does to the captured stack.
	Live map[string]*live.Cluster

	// ahead has the bundles rendered beside the rules (RenderAhead).
	ahead *envcheck.Checker
}

// Check loads the profiles, resolves every environment asked for and
// applies the lint rules to it.
func Check(opts Options) (*Result, error) {
	res, err := check(opts)
	var unknown *load.UnknownEnvError
	if errors.As(err, &unknown) {
		return nil, &UsageError{Msg: err.Error()}
	}
	return res, err
}

func check(opts Options) (*Result, error) {
	folder := opts.Folder
	if folder == nil {
		f, closeFn, err := load.Open(opts.Dir)
		if err != nil {
			return nil, err
		}
		defer closeFn()
		folder = &f
	}
	progress := &load.Progress{}
	f := *folder
	f.Progress = progress
	if opts.Limits != nil {
		f.Limits = opts.Limits
	}
	checker := envcheck.New(f.FS, f.Path, opts.Today)
	checker.Meter, checker.GC = opts.Meter, opts.GC
	checker.RenderAhead = opts.RenderAhead
	f.Sized = checker.Size
	type result struct {
		loaded *load.Result
		err    error
	}
	done := make(chan result, 1)
	go func() {
		loaded, err := load.Load(f, opts.Envs, checker.Check)
		done <- result{loaded, err}
	}()
	var timeout <-chan time.Time
	if opts.Timeout > 0 {
		t := time.NewTimer(opts.Timeout)
		defer t.Stop()
		timeout = t.C
	}
	var r result
	select {
	case r = <-done:
	case <-timeout:
		// CUE and Jsonnet cannot be interrupted: the evaluation is left
		// behind, and the command ends with this error.
		return nil, fmt.Errorf("evaluating %s took longer than %s (--eval-timeout); nothing was written", progress, opts.Timeout)
	}
	loaded, err := r.loaded, r.err
	if err != nil {
		return nil, err
	}
	res := &Result{Names: loaded.Names, Findings: diag.Sort(loaded.Findings), All: len(opts.Envs) == 0, Meter: opts.Meter}
	if opts.RenderAhead {
		res.ahead = checker
	}
	if diag.HasErrors(res.Findings) && (!opts.KeepInvalid || len(loaded.Envs) < len(opts.Envs) || len(opts.Envs) == 0) {
		return res, nil
	}
	for _, src := range loaded.Envs {
		res.Envs = append(res.Envs, checker.Resolved(src.Name))
	}
	return res, nil
}

// Sink takes what a render makes. Put is called from parallel workers,
// once per environment; Finish once at the end, with the files of out/
// itself (nil unless every environment was rendered).
type Sink interface {
	Put(b *model.Bundle) error
	Finish(fleet map[string][]byte) error
}

// Render renders every environment in parallel into the sink. Bundles are
// dropped once the sink has them, so memory stays flat over a fleet. The
// first error stops it; Finish is called only when every bundle is in.
func (r *Result) Render(sink Sink) error {
	rd := generators.NewRenderer()
	r.Meter.Begin(progress.Rendering, len(r.Envs))
	g, ctx := errgroup.WithContext(context.Background())
	g.SetLimit(runtime.GOMAXPROCS(0))
	for _, e := range r.Envs {
		g.Go(func() error {
			if ctx.Err() != nil {
				return nil // another environment failed
			}
			b, err := r.render(rd, e)
			if err != nil {
				return err
			}
			if err := previewStack(b, e, r.Live[e.Name]); err != nil {
				return err
			}
			if err := sink.Put(b); err != nil {
				return err
			}
			r.Meter.Step()
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return err
	}
	var fleet map[string][]byte
	if r.All {
		fleet = rd.FleetFiles(r.Envs)
	}
	return sink.Finish(fleet)
}

// render is e's bundle: the one rendered beside the rules when there is
// one, else one rd renders now.
func (r *Result) render(rd *generators.Renderer, e *model.Env) (*model.Bundle, error) {
	if r.ahead != nil {
		if b, ok, err := r.ahead.Rendered(e); ok {
			return b, err
		}
	}
	return rd.Render(e)
}

// previewStack adds to a bundle's SUMMARY.md what deploying its template
// does to the stack a capture holds.
func previewStack(b *model.Bundle, e *model.Env, c *live.Cluster) error {
	if c == nil {
		return nil
	}
	changes, ok, err := c.Preview(e, b.Files[model.FileCloudFormation])
	if err != nil || !ok {
		return err
	}
	b.Files[model.FileSummary] = append(b.Files[model.FileSummary], generators.SummaryStack(e, c.Dir, c.Stacks[e.Names.Stack].Exists, c.Stacks[e.Names.Stack].Status, changes)...)
	return nil
}

// Collect is a sink that keeps the bundles in memory, by environment.
type Collect struct {
	mu      sync.Mutex
	Bundles map[string]*model.Bundle
	Fleet   map[string][]byte
}

func (c *Collect) Put(b *model.Bundle) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.Bundles == nil {
		c.Bundles = map[string]*model.Bundle{}
	}
	c.Bundles[b.Env] = b
	return nil
}

func (c *Collect) Finish(fleet map[string][]byte) error {
	c.Fleet = fleet
	return nil
}

// Replanner makes the upgrade plans written under out/<env>/upgrade/
// again from the result's environments, for a sink that checks or keeps
// them.
func (r *Result) Replanner() output.Replanner { return printer.Replanner(r.Envs, r.Live) }
