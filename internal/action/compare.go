package action

import (
	"fmt"
	"slices"

	"github.com/karpgen/karpgen/generators"
	"github.com/karpgen/karpgen/internal/fleetdiff"
	"github.com/karpgen/karpgen/internal/model"
)

// Compare is karpgen diff: it compares two checked sides of the
// profiles, for the environments named (every environment of either side
// when none is). It renders only the environments whose resolved inputs
// differ between the sides (a bundle is a pure function of them), the
// base's into memory and the head's straight into the comparison
// (fleetdiff's Differ is its sink), and compares the files of out/
// itself.
func Compare(baseName string, baseRes, headRes *Result, names []string) (*fleetdiff.Report, error) {
	baseEnvs, headEnvs := envsByName(baseRes.Envs), envsByName(headRes.Envs)
	asked := slices.Clone(names)
	if len(asked) == 0 {
		asked = slices.Concat(baseRes.Names, headRes.Names)
	}
	slices.Sort(asked)
	asked = slices.Compact(asked)
	var same []string
	differ := map[string]bool{}
	for _, n := range asked {
		if b, h := baseEnvs[n], headEnvs[n]; b != nil && h != nil && b.SameInputs(h) {
			same = append(same, n)
		} else {
			differ[n] = true
		}
	}
	only := func(envs []*model.Env) []*model.Env {
		var out []*model.Env
		for _, e := range envs {
			if differ[e.Name] {
				out = append(out, e)
			}
		}
		return out
	}
	rendered := &Result{Envs: only(baseRes.Envs)}
	var c Collect
	if err := rendered.Render(&c); err != nil {
		return nil, fmt.Errorf("rendering the base: %w", err)
	}
	d := fleetdiff.NewDiffer(baseName, fleetdiff.NewSide(baseRes.Envs, c.Bundles), headEnvs, names)
	d.Unchanged(same...)
	if err := (&Result{Envs: only(headRes.Envs)}).Render(d); err != nil {
		return nil, err
	}
	if baseRes.All && headRes.All {
		rd := generators.NewRenderer()
		if err := d.Fleet(rd.FleetFiles(baseRes.Envs), rd.FleetFiles(headRes.Envs)); err != nil {
			return nil, err
		}
	}
	return d.Report()
}

func envsByName(envs []*model.Env) map[string]*model.Env {
	m := map[string]*model.Env{}
	for _, e := range envs {
		m[e.Name] = e
	}
	return m
}
