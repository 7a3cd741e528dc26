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

	"github.com/karpgen/karpgen/internal/lint"
	"github.com/karpgen/karpgen/internal/model"
	"github.com/karpgen/karpgen/internal/util/safefs"
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
	extra  []string          // staged files of out/ itself
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
	restored, err := recoverJournal(dir)
	if err != nil {
		l.release()
		return nil, fmt.Errorf("putting back an interrupted render of %s: %w", filepath.ToSlash(dir), err)
	}
	if len(restored) > 0 && opts.Stderr != nil {
		shown := make([]string, len(restored))
		for i, r := range restored {
			shown[i] = filepath.ToSlash(filepath.Join(dir, r))
		}
		fmt.Fprintf(opts.Stderr, "karpgen: a render of %s was interrupted while it replaced folders; put back as they were before it: %s\n",
			filepath.ToSlash(dir), strings.Join(shown, ", "))
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

func (d *Disk) Put(b *model.Bundle) error {
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
	var moves []move
	for _, env := range envs {
		if tmp := d.staged[env]; tmp != "" {
			m, err := d.moveTo(env, filepath.Base(tmp))
			if err != nil {
				return err
			}
			moves = append(moves, m)
		}
	}
	// The files of out/ itself are staged beside their targets and
	// swapped in with the folders.
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
			staged, err := d.reserve("gone-")
			if err != nil {
				return err
			}
			ino, _ := inode(filepath.Join(d.dir, name))
			moves = append(moves, move{kind: moveGone, target: name, staged: staged, ino: ino})
		case want && (!found || !bytes.Equal(have, data)):
			fleetChanged = append(fleetChanged, name)
			staged, err := d.stageFile(data)
			if err != nil {
				return err
			}
			m, err := d.moveTo(name, staged)
			if err != nil {
				return err
			}
			moves = append(moves, m)
		}
	}
	// What the moves replace must be removable once replaced; checked
	// before anything changes.
	for _, m := range moves {
		if m.kind != moveNew {
			if err := removable(filepath.Join(d.dir, m.target)); err != nil {
				return fmt.Errorf("%w; nothing was changed", err)
			}
		}
	}
	done, err := commit(d.dir, moves)
	if err != nil {
		return fmt.Errorf("%w; nothing was changed", err)
	}
	if err := finishCommit(d.dir); err != nil {
		undo(d.dir, done)
		return fmt.Errorf("committing %s: %w; nothing was changed", d.show(journalFile), err)
	}
	// What the new folders replaced goes; a folder that cannot be removed
	// after all is an error naming it, never a silent leftover in out/.
	var left []string
	for _, m := range done {
		if m.kind != moveNew {
			if err := removeAll(filepath.Join(d.dir, m.staged)); err != nil {
				left = append(left, d.show(m.staged))
			}
		}
	}
	for _, env := range envs {
		d.staged[env] = ""
	}
	written := make(map[string]bool, len(done))
	for _, m := range done {
		written[m.target] = true
	}
	for _, env := range envs {
		state := "unchanged"
		if written[env] {
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
	for _, tmp := range d.extra {
		os.Remove(tmp)
	}
	d.staged, d.extra = map[string]string{}, nil
	d.lock.release()
	d.lock = nil
}

// moveTo is the move that puts the staged entry (a name in out/) at
// target: an exchange when target exists, a rename when not.
func (d *Disk) moveTo(target, staged string) (move, error) {
	ino, ok := inode(filepath.Join(d.dir, staged))
	if !ok {
		return move{}, fmt.Errorf("replacing %s: %s is gone; nothing was changed", d.show(target), d.show(staged))
	}
	kind := moveNew
	if _, err := os.Lstat(filepath.Join(d.dir, filepath.FromSlash(target))); err == nil {
		kind = moveSwap
	}
	return move{kind: kind, target: filepath.ToSlash(target), staged: staged, ino: ino}, nil
}

// stageFile writes data to a new temporary file in out/ and returns its
// name; Close removes it if it is not swapped in.
func (d *Disk) stageFile(data []byte) (string, error) {
	f, err := os.CreateTemp(d.dir, tmpPrefix+"file-")
	if err != nil {
		return "", err
	}
	d.extra = append(d.extra, f.Name())
	_, err = f.Write(data)
	if err == nil {
		err = f.Chmod(0o644)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return filepath.Base(f.Name()), err
}

// reserve returns a free temporary name in out/.
func (d *Disk) reserve(kind string) (string, error) {
	f, err := os.CreateTemp(d.dir, tmpPrefix+kind)
	if err != nil {
		return "", err
	}
	f.Close()
	return filepath.Base(f.Name()), os.Remove(f.Name())
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

func (c *Check) Put(b *model.Bundle) error {
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
	// A killed render leaves its journal: out/ is half of two renders
	// until the next render puts it back.
	if _, found, _ := readJournal(c.Dir); found {
		return fmt.Errorf("%s holds a render that was interrupted (%s): run karpgen render, which puts it back first", filepath.ToSlash(c.Dir), journalFile)
	}
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

func (s *Build) Put(b *model.Bundle) error {
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
