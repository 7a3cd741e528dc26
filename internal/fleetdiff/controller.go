package fleetdiff

import (
	"maps"
	"reflect"
	"slices"
	"strings"

	"github.com/karpgen/karpgen/internal/facts"
	"github.com/karpgen/karpgen/internal/iam/iampolicy"
	"github.com/karpgen/karpgen/internal/model"
)

// ControllerDelta is what changes in the controller's IAM between two
// environments' bundles, its policy read as one whatever the files it is
// split in (a release may split it where another does not): actions
// allowed now and not before and the reverse, statements whose content
// changes, and the managed policies that appear or go.
type ControllerDelta struct {
	Added           []string `json:"added"`
	Removed         []string `json:"removed"`
	Rescoped        []string `json:"rescoped"`
	PoliciesAdded   []string `json:"policiesAdded"`
	PoliciesRemoved []string `json:"policiesRemoved"`
}

// ControllerStatements are the statements, by Sid, of the controller
// policies among a bundle's files, read as one policy.
func ControllerStatements(files map[string][]byte) map[string]map[string]any {
	return Statements(files, model.IAMFile(model.ControllerPolicyPrefix))
}

// Controller compares the controller policies of an environment's bundle
// before and after a change (the environment as it was, and as it is).
func Controller(was, env *model.Env, before, after *model.Bundle) ControllerDelta {
	var d ControllerDelta
	d.PoliciesAdded, d.PoliciesRemoved = iampolicy.Diff(policyNames(was), policyNames(env))
	old, is := ControllerStatements(before.Files), ControllerStatements(after.Files)
	d.Added, d.Removed = iampolicy.Diff(allowed(old), allowed(is))
	for _, sid := range slices.Sorted(maps.Keys(is)) {
		if st, ok := old[sid]; ok && !reflect.DeepEqual(iampolicy.Normalize(st), iampolicy.Normalize(is[sid])) {
			d.Rescoped = append(d.Rescoped, sid)
		}
	}
	return d
}

// policyNames are the names of an environment's controller managed
// policies.
func policyNames(e *model.Env) []string {
	var out []string
	for _, cp := range iampolicy.ControllerPolicies(e.Facts, e.Names, e.IAMGates) {
		out = append(out, cp.Name)
	}
	return out
}

// allowed lists the actions of statements.
func allowed(sts map[string]map[string]any) []string {
	var out []string
	for _, s := range sts {
		for _, a := range iampolicy.Strings(s["Action"]) {
			if !slices.Contains(out, a) {
				out = append(out, a)
			}
		}
	}
	return out
}

// ChartDelta is what changes in a chart's values between two releases.
type ChartDelta struct {
	Added           []string        `json:"added"`
	Removed         []string        `json:"removed"`
	Renamed         []Rename        `json:"renamed"`
	DefaultsChanged []DefaultChange `json:"defaultsChanged"`
}

// Rename is a values key that moved.
type Rename struct {
	From string `json:"from"`
	To   string `json:"to"`
}

// DefaultChange is a values key whose default changed (as JSON).
type DefaultChange struct {
	Key  string `json:"key"`
	From string `json:"from"`
	To   string `json:"to"`
}

// Chart compares two charts' default values, flattened to dotted keys:
// keys added and removed, keys that moved (the same last name and default
// under another parent), and defaults that changed. The values the chart
// stamps with its release (facts.StampedValues) change every release and
// are left out.
func Chart(before, after map[string]string) ChartDelta {
	var v ChartDelta
	added, removed := iampolicy.Diff(slices.Collect(maps.Keys(before)), slices.Collect(maps.Keys(after)))
	for _, r := range removed {
		last := r[strings.LastIndex(r, ".")+1:]
		moved := ""
		for _, a := range added {
			if a[strings.LastIndex(a, ".")+1:] == last && before[r] == after[a] {
				moved = a
			}
		}
		if moved == "" {
			v.Removed = append(v.Removed, r)
			continue
		}
		v.Renamed = append(v.Renamed, Rename{From: r, To: moved})
		added = slices.DeleteFunc(added, func(x string) bool { return x == moved })
	}
	v.Added = added
	for _, k := range slices.Sorted(maps.Keys(after)) {
		if slices.Contains(facts.StampedValues, k) {
			continue
		}
		if old, ok := before[k]; ok && old != after[k] {
			v.DefaultsChanged = append(v.DefaultsChanged, DefaultChange{Key: k, From: old, To: after[k]})
		}
	}
	return v
}
