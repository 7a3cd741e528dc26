package load

import (
	"runtime"
	"slices"
	"sync/atomic"

	"cuelang.org/go/cue"
	"cuelang.org/go/cue/load"
	"golang.org/x/sync/errgroup"

	"github.com/karpgen/karpgen/internal/diag"
	"github.com/karpgen/karpgen/internal/fieldpos"
	"github.com/karpgen/karpgen/internal/load/internal/prune"
)

// A large package is evaluated in batches. Evaluated whole, every
// environment's CUE values stay reachable from the package's root until
// the last environment is checked, and each worker evaluates the whole
// package again: the heap grows with the fleet, and so does what the
// collector scans each time it runs, so an environment costs more the
// larger the package. Pruned to one batch of environments at a time
// (the pruning `build` uses: every other environment's text taken out,
// each line and column kept), a package costs the same per environment
// whatever its size, and a batch's values are garbage once its
// environments are checked.
//
// Only a package pruning can take apart is batched: one whose
// environments are plain fields of `environments` that no identifier
// names. Environments declared some other way (a comprehension, a
// pattern) are in every batch's package, and are checked with the
// first. When a batch's package has errors of its own, the package is
// loaded whole instead, so that its errors are reported as they always
// are.

// batchSize is how many environments one evaluation holds.
const batchSize = 256

// loadInBatches loads a package of more than batchSize environments in
// batches; nil, nil when the package is not one to batch, or when a
// batch's package has errors.
func loadInBatches(dir Folder, cueFiles []string, check Check) (*Result, error) {
	ps := prune.Scan(dir.FS, dir.Path, cueFiles)
	if ps == nil || len(ps.Envs()) <= batchSize || slices.ContainsFunc(ps.Envs(), ps.Refers) {
		return nil, nil
	}
	batches := slices.Collect(slices.Chunk(ps.Envs(), batchSize))
	// The first batch's worker takes in every environment its package
	// holds: the batch, and those that are not plain fields.
	first, fs, err := batchWorker(dir, cueFiles, ps, batches[0], nil)
	if err != nil || len(fs) > 0 {
		return nil, err
	}
	if !containsAll(first.raws, batches[0]) {
		return nil, nil
	}
	// The first batch also checks the environments that are not plain
	// fields; one that is also a plain field of a later batch is that
	// batch's (the first batch's package holds only part of it).
	plain := make(map[string]bool, len(ps.Envs()))
	for _, n := range ps.Envs() {
		plain[n] = true
	}
	var extras []string
	for _, n := range sortedNames(first.raws) {
		if !plain[n] {
			extras = append(extras, n)
		}
	}
	firstNames := slices.Concat(batches[0], extras)
	names := slices.Sorted(slices.Values(slices.Concat(ps.Envs(), extras)))
	res := &Result{Names: names}
	if fs := dir.Limits.tooManyEnvironments(len(names), first.envs); len(fs) > 0 {
		res.Findings = fs
		return res, nil
	}
	if dir.Sized != nil {
		dir.Sized(len(names), true)
	}
	index := make(map[string]int, len(names))
	for i, n := range names {
		index[n] = i
	}
	envs := make([]*Env, len(names))
	findings := make([][]diag.Finding, len(names))
	// The first worker is handed over, so that nothing here keeps its
	// values once its batch is checked.
	handover := make(chan *worker, 1)
	handover <- first
	first = nil
	var failed atomic.Bool
	n := min(runtime.GOMAXPROCS(0), len(batches))
	var g errgroup.Group
	for k := range n {
		g.Go(func() error {
			for b := k; b < len(batches) && !failed.Load(); b += n {
				var w *worker
				todo := firstNames
				if b == 0 {
					w = <-handover
				} else {
					var fs []diag.Finding
					var err error
					if w, fs, err = batchWorker(dir, cueFiles, ps, batches[b], batches[b]); err != nil {
						return err
					}
					if len(fs) > 0 || !containsAll(w.raws, batches[b]) {
						failed.Store(true)
						return nil
					}
					todo = batches[b]
				}
				for _, name := range todo {
					dir.Progress.Set("environment " + name)
					env, fs := w.unify(name)
					if env != nil && check != nil {
						fs = append(fs, check(env)...)
					}
					if env != nil {
						// The batch's values are garbage from here.
						env.Source = fieldpos.Source{}
					}
					envs[index[name]], findings[index[name]] = env, fs
				}
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	if failed.Load() {
		return nil, nil
	}
	res.gather(envs, findings)
	return res, nil
}

// batchWorker builds the package pruned to keep, taking in the
// environments in only (all that the pruned package holds when nil).
// A package pruning cannot take apart for keep is built whole.
func batchWorker(dir Folder, cueFiles []string, ps *prune.Package, keep, only []string) (*worker, []diag.Finding, error) {
	return buildWorker(dir, cueFiles, nil, only, func(cfg *load.Config) { ps.Apply(cfg, keep) })
}

func containsAll(raws map[string]cue.Value, names []string) bool {
	for _, n := range names {
		if _, ok := raws[n]; !ok {
			return false
		}
	}
	return true
}
