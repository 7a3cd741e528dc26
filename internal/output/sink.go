package output

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"sync"

	"github.com/karpgen/karpgen/generators"
)

// Disk is the sink of `karpgen render`: each environment's folder under
// Dir is replaced atomically, then the files of Dir itself. Finish prints
// a status line per environment and per fleet file to Stdout, and names
// folders of no environment on Stderr.
type Disk struct {
	Dir            string
	Names          []string // every environment of the profiles
	Stdout, Stderr io.Writer

	mu     sync.Mutex
	states map[string]string
}

// NewDisk prepares dir (creating it, removing leftovers of an interrupted
// render) and returns its sink.
func NewDisk(dir string, names []string, stdout, stderr io.Writer) (*Disk, error) {
	if err := Prepare(dir); err != nil {
		return nil, err
	}
	return &Disk{Dir: dir, Names: names, Stdout: stdout, Stderr: stderr, states: map[string]string{}}, nil
}

func (d *Disk) Put(b *generators.Bundle) error {
	changed, err := WriteBundle(d.Dir, b)
	state := "unchanged"
	switch {
	case err != nil:
		state = "failed"
	case changed:
		state = fmt.Sprintf("written (%d files)", len(b.Files))
	}
	d.mu.Lock()
	d.states[b.Env] = state
	d.mu.Unlock()
	return err
}

// Report prints the status of the environments written so far; Finish
// calls it, and callers call it after a failed render.
func (d *Disk) Report() {
	d.mu.Lock()
	defer d.mu.Unlock()
	envs := make([]string, 0, len(d.states))
	for env := range d.states {
		envs = append(envs, env)
	}
	slices.Sort(envs)
	for _, env := range envs {
		fmt.Fprintf(d.Stdout, "%s: %s\n", d.show(env), d.states[env])
	}
	d.states = map[string]string{}
}

func (d *Disk) Finish(fleet map[string][]byte) error {
	d.Report()
	if fleet == nil {
		return nil
	}
	changed, err := WriteFleet(d.Dir, fleet)
	for _, f := range changed {
		state := "removed"
		if _, ok := fleet[f]; ok {
			state = "written"
		}
		fmt.Fprintf(d.Stdout, "%s: %s\n", d.show(f), state)
	}
	if err != nil {
		return err
	}
	for _, s := range Strays(d.Dir, d.Names) {
		fmt.Fprintf(d.Stderr, "karpgen: %s belongs to no environment of the profiles; remove it if it is stale\n", d.show(s))
	}
	return nil
}

func (d *Disk) show(name string) string { return filepath.ToSlash(filepath.Join(d.Dir, name)) }

// DiffersError is returned by Check's Finish when out/ is not what the
// profiles render.
type DiffersError struct{ Dir string }

func (e *DiffersError) Error() string {
	return filepath.ToSlash(e.Dir) + " is not what the profiles render: run karpgen render"
}

// Check is the sink of `karpgen render --check`: it writes nothing and
// prints a unified diff, file by file, from what is under Dir to what the
// profiles render, environments in name order.
type Check struct {
	Dir    string
	Stdout io.Writer

	mu    sync.Mutex
	diffs map[string]*bytes.Buffer
}

func (c *Check) Put(b *generators.Bundle) error {
	var buf bytes.Buffer
	if _, err := DiffBundle(&buf, c.Dir, b); err != nil {
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
	envs := make([]string, 0, len(c.diffs))
	for env := range c.diffs {
		envs = append(envs, env)
	}
	slices.Sort(envs)
	for _, env := range envs {
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
// top when there is one, and writes the objects to Stdout only when all
// went well. An empty result is an error.
type Build struct {
	Overlays string
	Stdout   io.Writer

	stream []byte
	env    string
}

func (s *Build) Put(b *generators.Bundle) error {
	if s.env != "" {
		return fmt.Errorf("build takes one environment, got %s and %s", s.env, b.Env)
	}
	stream, err := BuildBundle(b, filepath.Join(s.Overlays, b.Env))
	if err != nil {
		return err
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
