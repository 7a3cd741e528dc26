package upgrade

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"

	"github.com/karpgen/karpgen/generators"
	"github.com/karpgen/karpgen/internal/facts"
	"github.com/karpgen/karpgen/internal/iamdoc"
	"github.com/karpgen/karpgen/internal/iampolicy"
	"github.com/karpgen/karpgen/internal/model"
	"github.com/karpgen/karpgen/internal/profile"
)

// statements returns the controller's statements by Sid, and the names
// of its managed policies.
func statements(e *model.Env) (map[string]map[string]any, []string) {
	out := map[string]map[string]any{}
	var names []string
	for _, cp := range iampolicy.ControllerPolicies(e.Facts, e.Names, e.IAMGates) {
		names = append(names, cp.Name)
		for _, st := range cp.Document["Statement"].([]any) {
			s := st.(map[string]any)
			out[s["Sid"].(string)] = s
		}
	}
	return out, names
}

// actions lists the actions of statements.
func actions(sts map[string]map[string]any) []string {
	var out []string
	for _, s := range sts {
		for _, a := range iamdoc.Strings(s["Action"]) {
			if !slices.Contains(out, a) {
				out = append(out, a)
			}
		}
	}
	return out
}

// iamDelta compares the controller's policies at two releases: actions
// allowed now and not before (and the reverse), statements whose actions
// stay but whose resources or conditions change, and managed policies
// that appear or go.
func iamDelta(a, b *model.Env) IAMDelta {
	before, beforeNames := statements(a)
	after, afterNames := statements(b)
	var d IAMDelta
	d.Added, d.Removed = iamdoc.Diff(actions(before), actions(after))
	for _, sid := range slices.Sorted(maps.Keys(after)) {
		old, ok := before[sid]
		if !ok {
			continue
		}
		if !reflect.DeepEqual(iamdoc.Normalize(old), iamdoc.Normalize(after[sid])) {
			d.Rescoped = append(d.Rescoped, sid)
		}
	}
	d.PoliciesAdded, d.PoliciesRemoved = iamdoc.Diff(beforeNames, afterNames)
	return d
}

// valuesDelta compares two charts' values: keys added and removed, keys
// that moved (the same last name under another parent), and defaults
// that changed.
func valuesDelta(before, after map[string]string) Values {
	var v Values
	added, removed := iamdoc.Diff(slices.Collect(maps.Keys(before)), slices.Collect(maps.Keys(after)))
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
	for _, k := range facts.SortedKeys(after) {
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
		added, removed := iamdoc.Diff(before, after)
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

// drift renders the environment at both releases and names the node
// classes and pools whose objects change: their nodes drift and are
// replaced, as fast as the pools' disruption budgets let through.
func drift(a, b *model.Env) []string {
	before, errA := generators.Render(a)
	after, errB := generators.Render(b)
	if errA != nil || errB != nil {
		return nil
	}
	var out []string
	for _, file := range []string{model.FileNodeClasses, model.FileNodePools} {
		if string(before.Files[file]) == string(after.Files[file]) {
			continue
		}
		if file == model.FileNodeClasses {
			for _, class := range slices.Sorted(maps.Keys(b.Profile.NodeClasses)) {
				var pools []string
				for _, name := range slices.Sorted(maps.Keys(b.Profile.NodePools)) {
					if b.Profile.NodePools[name].NodeClass == class {
						pools = append(pools, name+" ("+budgets(b.Profile.NodePools[name].Disruption.Budgets)+")")
					}
				}
				out = append(out, fmt.Sprintf("EC2NodeClass %s changes: nodes of %s drift and are replaced", class, strings.Join(pools, ", ")))
			}
			continue
		}
		for _, name := range slices.Sorted(maps.Keys(b.Profile.NodePools)) {
			out = append(out, fmt.Sprintf("NodePool %s changes: its nodes drift and are replaced (%s)", name, budgets(b.Profile.NodePools[name].Disruption.Budgets)))
		}
	}
	return out
}

// budgets says how fast a pool's budgets let drift replace nodes.
func budgets(bs []profile.Budget) string {
	if len(bs) == 0 {
		return "no budget: Karpenter's default replaces 10% of the pool's nodes at a time"
	}
	var parts []string
	for _, b := range bs {
		s := b.Nodes + " nodes at a time"
		if len(b.Reasons) > 0 {
			s += " for " + strings.Join(b.Reasons, ", ")
		}
		if b.Schedule != "" {
			s += fmt.Sprintf(" during %s from %q", b.Duration, b.Schedule)
		}
		parts = append(parts, s)
	}
	return "budgets: " + strings.Join(parts, "; ")
}
