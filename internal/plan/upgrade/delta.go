package upgrade

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"

	"github.com/karpgen/karpgen/generators"
	"github.com/karpgen/karpgen/internal/facts"
	"github.com/karpgen/karpgen/internal/fleetdiff"
	"github.com/karpgen/karpgen/internal/iam/iampolicy"
	"github.com/karpgen/karpgen/internal/model"
)

// controllerPolicies begins the path of every controller policy in a
// bundle.
var controllerPolicies = model.IAMFile(model.ControllerPolicyPrefix)

// actions lists the actions of statements.
func actions(sts map[string]map[string]any) []string {
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

// iamDelta compares the controller's policies of the bundles rendered at
// two releases, read as one policy whatever the files it is split in:
// actions allowed now and not before (and the reverse), statements whose
// content changes, and managed policies that appear or go.
func iamDelta(a, b *model.Env, before, after *generators.Bundle) IAMDelta {
	was, is := fleetdiff.Statements(before.Files, controllerPolicies), fleetdiff.Statements(after.Files, controllerPolicies)
	var d IAMDelta
	d.Added, d.Removed = iampolicy.Diff(actions(was), actions(is))
	for _, sid := range slices.Sorted(maps.Keys(is)) {
		if old, ok := was[sid]; ok && !reflect.DeepEqual(iampolicy.Normalize(old), iampolicy.Normalize(is[sid])) {
			d.Rescoped = append(d.Rescoped, sid)
		}
	}
	d.PoliciesAdded, d.PoliciesRemoved = iampolicy.Diff(policyNames(a), policyNames(b))
	return d
}

// policyNames are the names of the controller's managed policies.
func policyNames(e *model.Env) []string {
	var out []string
	for _, cp := range iampolicy.ControllerPolicies(e.Facts, e.Names, e.IAMGates) {
		out = append(out, cp.Name)
	}
	return out
}

// valuesDelta compares two charts' values: keys added and removed, keys
// that moved (the same last name under another parent), and defaults
// that changed.
func valuesDelta(before, after map[string]string) Values {
	var v Values
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

// crdChanges names what the CRDs accept now that they did not: the enums
// and label keys of the facts table.
func crdChanges(a, b *facts.Minor) []string {
	var out []string
	add := func(what string, before, after []string) {
		added, removed := iampolicy.Diff(before, after)
		for _, x := range added {
			out = append(out, fmt.Sprintf("%s %s is new", what, x))
		}
		for _, x := range removed {
			out = append(out, fmt.Sprintf("%s %s is gone", what, x))
		}
	}
	add("NodePool consolidationPolicy", a.ConsolidationPolicies, b.ConsolidationPolicies)
	add("NodePool requirement operator", a.RequirementOperators, b.RequirementOperators)
	add("capacity type", a.CapacityTypes, b.CapacityTypes)
	add("EC2NodeClass AMI alias family", a.AMIFamilies, b.AMIFamilies)
	add("NodePool label key", a.Labels.AWSKeys, b.Labels.AWSKeys)
	if a.Labels.RestrictKubernetesDomains && !b.Labels.RestrictKubernetesDomains {
		out = append(out, "NodePool labels and requirements may use the kubernetes.io and k8s.io domains")
	}
	return out
}

// driftLines say, for each object of a comparison, the pools whose
// nodes its change replaces and what paces them.
func driftLines(objects []fleetdiff.Object) []string {
	var out []string
	for _, o := range objects {
		for _, p := range o.Pools {
			out = append(out, fmt.Sprintf("%s %s (%s): nodes of pool %s: %s", o.Kind, o.Name, o.Effect, p.Pool, p.Summary))
		}
	}
	return out
}
