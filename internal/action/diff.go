package action

import (
	"maps"
	"slices"
	"strings"

	"github.com/karpgen/karpgen/internal/diag"
	"github.com/karpgen/karpgen/internal/fleetdiff"
	"github.com/karpgen/karpgen/internal/load"
	"github.com/karpgen/karpgen/internal/util/gcpolicy"
)

// Diff renders the profiles and their base in memory and compares them,
// environment by environment (karpgen diff).
type Diff struct {
	Dir  string
	Base Base
	// Envs limits the comparison to these environments; none means all.
	Envs []string
	// Workloads are placed on both sides of every changed environment.
	Workloads []string
	// States are captures of environments' clusters, "ENV=DIR", whose
	// prices price the workloads' nodes on both sides.
	States []string
	// Disruption runs the disruption view on both sides of each
	// environment States gives a capture of.
	Disruption bool
	Eval
}

// InvalidError is a side of a comparison that does not vet: its findings
// say why.
type InvalidError struct {
	Cmd, Side string
	Findings  []diag.Finding
}

func (e *InvalidError) Error() string { return e.Cmd + ": the " + e.Side + " are invalid" }

// Run compares the two sides.
func (d *Diff) Run() (*fleetdiff.Report, error) {
	if d.Base.Named() != 1 {
		return nil, usage("diff: name the base once, with --base, --base-rev or --base-dir")
	}
	states, err := d.states()
	if err != nil {
		return nil, err
	}
	folder, label, closeBase, err := d.Base.Open(d.Dir)
	if err != nil {
		return nil, err
	}
	defer closeBase()
	// A revision from before the profiles folder existed has no
	// environments: every one of the head is added.
	base := &Result{All: true}
	if folder.FS != nil {
		if base, err = d.side("base profiles ("+label+")", &folder, ""); err != nil {
			return nil, err
		}
	}
	head, err := d.side("profiles ("+d.Dir+")", nil, d.Dir)
	if err != nil {
		return nil, err
	}
	for _, n := range d.Envs {
		if !slices.Contains(base.Names, n) && !slices.Contains(head.Names, n) {
			return nil, usage("diff: no environment %q on either side", n)
		}
	}
	for _, n := range slices.Sorted(maps.Keys(states)) {
		if !slices.Contains(head.Names, n) {
			return nil, usage("diff: --state %s=%s: no environment %q in the profiles", n, states[n], n)
		}
	}
	report, err := Compare(label, base, head, d.Envs)
	if err != nil {
		return nil, err
	}
	if len(d.Workloads) > 0 {
		if err := DiffWorkloads(report, base, head, d.Workloads, states); err != nil {
			return nil, err
		}
	}
	if d.Disruption {
		if err := DiffDisruption(report, base, head, states); err != nil {
			return nil, err
		}
	}
	return report, nil
}

// states reads --state ENV=DIR: one capture an environment, and only
// with workloads to price or --disruption.
func (d *Diff) states() (map[string]string, error) {
	switch {
	case d.Disruption && len(d.States) == 0:
		return nil, usage("diff: --disruption decides on a capture of each environment's cluster: name it with --state ENV=DIR")
	case len(d.States) > 0 && len(d.Workloads) == 0 && !d.Disruption:
		return nil, usage("diff: --state prices the nodes of --workloads: name the workloads too")
	}
	out := map[string]string{}
	for _, s := range d.States {
		env, dir, ok := strings.Cut(s, "=")
		if !ok || env == "" || dir == "" {
			return nil, usage("diff: --state %q: give an environment and its capture, ENV=DIR", s)
		}
		if _, dup := out[env]; dup {
			return nil, usage("diff: --state names environment %q twice", env)
		}
		out[env] = dir
	}
	return out, nil
}

func (d *Diff) side(name string, folder *load.Folder, dir string) (*Result, error) {
	return CheckSide("diff", name, Options{Dir: dir, Folder: folder, Timeout: d.Timeout, Limits: &d.Limits, GC: gcpolicy.Diff})
}

// CheckSide checks one side of a comparison for command cmd (diff,
// rotate); a side that does not vet is an *InvalidError.
func CheckSide(cmd, side string, opts Options) (*Result, error) {
	res, err := Check(opts)
	if err != nil {
		return nil, wrap(cmd+": the "+side, err)
	}
	if diag.HasErrors(res.Findings) {
		return nil, &InvalidError{Cmd: cmd, Side: side, Findings: res.Findings}
	}
	return res, nil
}
