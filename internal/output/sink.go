package output

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/karpgen/karpgen/generators"
	"github.com/karpgen/karpgen/internal/lint"
	"github.com/karpgen/karpgen/internal/model"
	"github.com/karpgen/karpgen/internal/safefs"
)

// Disk is the sink of `karpgen render`. Put stages each environment's
// bundle beside its folder (in parallel) while out/ stays as it was;
// Finish swaps every staged folder in, then the files of out/ itself, and
// prints a status line each. Close releases the lock and removes whatever
// was staged and not swapped in, so a failed render changes nothing.
type Disk struct {
	dir  string
	opts DiskOptions
	lock *lock

	mu     sync.Mutex
	staged map[string]string // env -> staged folder; "" when current
	counts map[string]int
}

// DiskOptions say how Disk writes.
type DiskOptions struct {
	// Names are every environment of the profiles, to report folders of
	// environments that are gone; nil when only some were rendered.
	Names []string
	// DeleteForeign lets a render delete files in an environment's folder
	// that karpgen did not write.
	DeleteForeign bool
	// LockWait is how long to wait for another render of the same out/.
	LockWait time.Duration
	// Replan makes the upgrade plans in the environments' folders again;
	// with none, a folder holding a plan is an error.
	Replan         Replanner
	Stdout, Stderr io.Writer
}

// NewDisk locks dir (creating it), removes what an interrupted render
// left, and checks that it can write there before anything is rendered.
func NewDisk(dir string, opts DiskOptions) (*Disk, error) {
	if err := safefs.RealFolder(dir); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("creating %s: %w", filepath.ToSlash(dir), err)
	}
	if err := safefs.RealFolder(dir); err != nil {
		return nil, err
	}
	l, err := acquire(dir, opts.LockWait)
	if err != nil {
		return nil, err
	}
	removeLeftovers(dir)
	probe, err := os.CreateTemp(dir, tmpPrefix+"probe-")
	if err != nil {
		l.release()
		return nil, fmt.Errorf("%s is not writable: %w", filepath.ToSlash(dir), err)
	}
	probe.Close()
	os.Remove(probe.Name())
	return &Disk{dir: dir, opts: opts, lock: l, staged: map[string]string{}, counts: map[string]int{}}, nil
}

func (d *Disk) Put(b *generators.Bundle) error {
	tmp, err := stage(d.dir, b, d.opts.DeleteForeign, d.opts.Replan)
	d.mu.Lock()
	defer d.mu.Unlock()
	if err != nil {
		return err
	}
	d.staged[b.Env], d.counts[b.Env] = tmp, len(b.Files)
	return nil
}

func (d *Disk) Finish(fleet map[string][]byte) error {
	envs := slices.Sorted(maps.Keys(d.staged))
	var moves [][2]string
	for _, env := range envs {
		if tmp := d.staged[env]; tmp != "" {
			moves = append(moves, [2]string{filepath.Join(d.dir, env), tmp})
		}
	}
	// The files of out/ itself: staged as folders of one file would be
	// overkill; they are written beside their target and swapped in too.
	var fleetChanged []string
	haveFleet, err := readFleet(d.dir)
	if err != nil {
		return err
	}
	for _, name := range FleetFiles {
		have, found := haveFleet[name]
		data, want := fleet[name]
		switch {
		case fleet == nil:
		case !want && found:
			fleetChanged = append(fleetChanged, name)
		case want && (!found || !bytes.Equal(have, data)):
			fleetChanged = append(fleetChanged, name)
		}
	}
	done, err := commit(d.dir, moves)
	if err != nil {
		return fmt.Errorf("%w; nothing was changed", err)
	}
	for _, name := range fleetChanged {
		target := filepath.Join(d.dir, name)
		var err error
		if data, ok := fleet[name]; ok {
			err = writeFileAtomic(d.dir, target, data)
		} else {
			err = os.Remove(target)
		}
		if err != nil {
			undo(done)
			return fmt.Errorf("writing %s: %w; the environments' folders were put back", filepath.ToSlash(target), err)
		}
	}
	// What the new folders replaced goes; a folder that cannot be removed
	// (read-only contents, say) is an error naming it, never a silent
	// leftover in out/.
	var left []string
	for _, s := range done {
		if s.old != "" {
			if err := removeAll(s.old); err != nil {
				left = append(left, d.show(filepath.Base(s.old)))
			}
		}
	}
	for _, env := range envs {
		d.staged[env] = ""
	}
	written := make(map[string]bool, len(done))
	for _, s := range done {
		written[s.target] = true
	}
	for _, env := range envs {
		state := "unchanged"
		if written[filepath.Join(d.dir, env)] {
			state = fmt.Sprintf("written (%d files)", d.counts[env])
		}
		fmt.Fprintf(d.opts.Stdout, "%s: %s\n", d.show(env), state)
	}
	for _, name := range fleetChanged {
		state := "removed"
		if _, ok := fleet[name]; ok {
			state = "written"
		}
		fmt.Fprintf(d.opts.Stdout, "%s: %s\n", d.show(name), state)
	}
	if len(left) > 0 {
		return fmt.Errorf("the new bundles are in place, but what they replaced could not be removed: %s; remove it by hand (a render tries again)", strings.Join(left, ", "))
	}
	if d.opts.Names != nil {
		owned, other := Strays(d.dir, d.opts.Names)
		for _, s := range owned {
			fmt.Fprintf(d.opts.Stderr, "karpgen: %s was written for an environment the profiles no longer have; delete it once nothing uses it\n", d.show(s))
		}
		for _, s := range other {
			fmt.Fprintf(d.opts.Stderr, "karpgen: %s belongs to no environment of the profiles; remove it if it is stale\n", d.show(s))
		}
	}
	return nil
}

// Close removes what was staged and not swapped in, and releases out/.
func (d *Disk) Close() {
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, tmp := range d.staged {
		if tmp != "" {
			os.RemoveAll(tmp)
		}
	}
	d.staged = map[string]string{}
	d.lock.release()
	d.lock = nil
}

// removeAll removes what a swap replaced (a test makes it fail, as
// read-only contents do for a user who is not root).
var removeAll = os.RemoveAll

func (d *Disk) show(name string) string { return filepath.ToSlash(filepath.Join(d.dir, name)) }

// DiffersError is returned by Check's Finish when out/ is not what the
// profiles render.
type DiffersError struct{ Dir string }

func (e *DiffersError) Error() string {
	return filepath.ToSlash(e.Dir) + " is not what the profiles render: run karpgen render"
}

// Check is the sink of `karpgen render --check`: it writes nothing and
// prints a unified diff, file by file, from what is under Dir to what the
// profiles render, environments in name order. When every environment is
// rendered, a folder karpgen wrote for an environment the profiles no
// longer have is a difference too.
type Check struct {
	Dir    string
	Stdout io.Writer
	// Names are every environment of the profiles.
	Names []string
	// Replan makes the upgrade plans in the environments' folders again.
	Replan Replanner

	mu    sync.Mutex
	diffs map[string]*bytes.Buffer
}

func (c *Check) Put(b *generators.Bundle) error {
	var buf bytes.Buffer
	if _, err := DiffBundle(&buf, c.Dir, b, c.Replan); err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.diffs == nil {
		c.diffs = map[string]*bytes.Buffer{}
	}
	c.diffs[b.Env] = &buf
	return nil
}

func (c *Check) Finish(fleet map[string][]byte) error {
	differs := false
	if fleet != nil {
		d, err := DiffFleet(c.Stdout, c.Dir, fleet)
		if err != nil {
			return err
		}
		differs = d
	}
	if fleet != nil {
		stale, _ := Strays(c.Dir, c.Names)
		for _, env := range stale {
			var buf bytes.Buffer
			if err := DiffGone(&buf, c.Dir, env); err != nil {
				return err
			}
			if c.diffs == nil {
				c.diffs = map[string]*bytes.Buffer{}
			}
			c.diffs[env] = &buf
		}
	}
	for _, env := range slices.Sorted(maps.Keys(c.diffs)) {
		differs = differs || c.diffs[env].Len() > 0
		if _, err := c.Stdout.Write(c.diffs[env].Bytes()); err != nil {
			return err
		}
	}
	if differs {
		return &DiffersError{Dir: c.Dir}
	}
	return nil
}

// Build is the sink of `karpgen build`: it runs kustomize over the one
// bundle it takes, with the environment's overlay from Overlays/<env>/ on
// top when there is one, checks the result against Env (lint.CheckBuilt),
// and writes the objects to Stdout only when all went well. An empty
// result is an error.
type Build struct {
	Overlays string
	// AllowKinds are kinds an overlay may add, remove or rename objects
	// of ("Kind" or "group/Kind").
	AllowKinds []string
	Stdout     io.Writer
	// Env, when set, is the environment the objects are checked against
	// before they are printed.
	Env *model.Env

	stream []byte
	env    string
}

func (s *Build) Put(b *generators.Bundle) error {
	if s.env != "" {
		return fmt.Errorf("build takes one environment, got %s and %s", s.env, b.Env)
	}
	stream, err := BuildBundle(b, filepath.Join(s.Overlays, b.Env), s.AllowKinds...)
	if err != nil {
		return err
	}
	if s.Env != nil {
		if err := lint.CheckBuilt(s.Env, stream); err != nil {
			return err
		}
	}
	s.stream, s.env = stream, b.Env
	return nil
}

func (s *Build) Finish(map[string][]byte) error {
	if len(s.stream) == 0 {
		return errors.New("nothing to build")
	}
	_, err := s.Stdout.Write(s.stream)
	return err
}
