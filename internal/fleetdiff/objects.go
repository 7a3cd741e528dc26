package fleetdiff

import (
	"fmt"
	"maps"
	"slices"

	"github.com/karpgen/karpgen/internal/facts/drift"
	"github.com/karpgen/karpgen/internal/model"
	"github.com/karpgen/karpgen/internal/util/keys"
	"github.com/karpgen/karpgen/internal/util/manifest"
)

// objects compares the NodePools and EC2NodeClasses of two bundles, by
// the rules of the release the head runs; from are those of the release
// the base runs; env is the head's environment, whose zone a change of
// budgets is told in.
func objects(from, rules *drift.Rules, env *model.Env, base, head map[string][]byte) ([]Object, error) {
	var out []Object
	// The files are read only when they differ, and the pools a second
	// time only when a node class changes.
	headPools, basePools := lazy(head[model.FileNodePools]), lazy(base[model.FileNodePools])
	for _, kind := range []struct {
		name, file string
	}{{drift.NodePool, model.FileNodePools}, {drift.EC2NodeClass, model.FileNodeClasses}} {
		if string(base[kind.file]) == string(head[kind.file]) {
			continue
		}
		b, err := decode(base[kind.file])
		if err != nil {
			return nil, err
		}
		h, err := decode(head[kind.file])
		if err != nil {
			return nil, err
		}
		for _, name := range keys.Union(b, h) {
			o := Object{Kind: kind.name, Name: name, Status: status(b[name] != nil, h[name] != nil), Changes: []drift.Change{}, Pools: []Pacing{}}
			switch o.Status {
			case "added":
				o.Effect = "create"
			case "removed":
				o.Effect = "delete"
				pools, err := basePools()
				if err != nil {
					return nil, err
				}
				for _, p := range reached(kind.name, name, pools) {
					o.Pools = append(o.Pools, Pacing{Pool: p, Budgets: []drift.Budget{}, Summary: "its nodes are drained and deleted"})
				}
			default:
				changes, err := rules.Compare(from, kind.name, b[name], h[name])
				if err != nil {
					return nil, err
				}
				if len(changes) == 0 {
					continue
				}
				for i := range changes {
					changes[i].Hours = hoursOf(changes[i], env)
				}
				o.Changes = changes
				o.Effect = string(effectOf(changes))
				pools, err := headPools()
				if err != nil {
					return nil, err
				}
				if o.Effect == string(drift.Recreate) {
					for _, p := range reached(kind.name, name, pools) {
						o.Pools = append(o.Pools, Pacing{Pool: p, Budgets: []drift.Budget{},
							Summary: "deleting the " + kind.name + " drains and deletes its nodes, whatever the budgets; the new one launches nodes again"})
					}
				} else if o.Effect == string(drift.Drift) {
					for _, p := range reached(kind.name, name, pools) {
						budgets, summary := drift.Pacing(pools[p])
						if hours, ok := pacing(pools[p], env); ok {
							summary = hours
						}
						if budgets == nil {
							budgets = []drift.Budget{}
						}
						o.Pools = append(o.Pools, Pacing{Pool: p, Budgets: budgets, Summary: summary})
					}
				}
			}
			out = append(out, o)
		}
	}
	if out == nil {
		out = []Object{}
	}
	return out, nil
}

// reached are the pools whose nodes a change to the object reaches: a
// pool itself, or the pools made from a node class.
func reached(kind, name string, pools map[string]map[string]any) []string {
	if kind == drift.NodePool {
		return []string{name}
	}
	var out []string
	for _, p := range slices.Sorted(maps.Keys(pools)) {
		if ref, _ := drift.Dig(pools[p], "spec", "template", "spec", "nodeClassRef", "name").(string); ref == name {
			out = append(out, p)
		}
	}
	return out
}

// lazy decodes a YAML stream of objects once, when first asked.
func lazy(text []byte) func() (map[string]map[string]any, error) {
	var m map[string]map[string]any
	var err error
	done := false
	return func() (map[string]map[string]any, error) {
		if !done {
			m, err = decode(text)
			done = true
		}
		return m, err
	}
}

// decode reads the objects of a YAML stream, by name.
func decode(text []byte) (map[string]map[string]any, error) {
	out := map[string]map[string]any{}
	for doc, err := range manifest.Documents[map[string]any](text) {
		if err != nil {
			return nil, fmt.Errorf("reading rendered objects: %w", err)
		}
		if doc == nil {
			continue
		}
		name, _ := drift.Dig(doc, "metadata", "name").(string)
		out[name] = doc
	}
	return out, nil
}
