package simulate

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/karpgen/karpgen/internal/diag"
	"github.com/karpgen/karpgen/internal/util/lazyre"
)

// Findings are a report's Pending pods as vet's findings: an error at
// each workload that would never schedule, with upstream's reason and
// the fix it points to.
func (r *Report) Findings() []diag.Finding {
	var out []diag.Finding
	for _, w := range r.Workloads {
		for _, key := range slices.Sorted(maps.Keys(w.GroupOnly)) {
			group, reason, _ := strings.Cut(key, ": ")
			out = append(out, diag.Finding{
				Rule: "simulate/node-group-only", Severity: diag.Warning, Env: r.Env,
				Pos: diag.Pos{File: w.File, Line: w.Line, Col: 1},
				Message: fmt.Sprintf("%s %s/%s: %d of its pods run only while node group %s has room, as they ask for no group and Karpenter launches nothing for them: %s",
					w.Kind, w.Namespace, w.Name, w.GroupOnly[key], group, reason),
				Hint: "select the node group (its labels) so that it is sized for them, or let a pool take them: " + cmp.Or(hintFor(reason, w.Asks), "see the reason"),
			})
		}
		for _, reason := range slices.Sorted(maps.Keys(w.Pending)) {
			n := w.Pending[reason]
			out = append(out, diag.Finding{
				Rule: "simulate/pending", Severity: diag.Error, Env: r.Env,
				Pos:     diag.Pos{File: w.File, Line: w.Line, Col: 1},
				Message: fmt.Sprintf("%s %s/%s: %s Pending in Karpenter's scheduler: %s", w.Kind, w.Namespace, w.Name, staying(n, w.Pods), reason),
				Hint:    hintFor(reason, w.Asks),
			})
		}
	}
	return out
}

var (
	taintReason  = lazyre.New(`did not tolerate taint \(taint=([^=:]+)(?:=([^:]*))?:([A-Za-z]+)\)`)
	volumeReason = lazyre.New(`incompatible volume requirements, key topology\.kubernetes\.io/zone, topology\.kubernetes\.io/zone In \[([^\]]+)\]`)
	labelReason  = lazyre.New(`label "([^"]+)" does not have known values(?: \(typo of "([^"]+)"\?\))?`)
)

// StillRefused says what keeps a workload's pods off a pool they select
// whatever its limits allow ("" for nothing): upstream checks a pool's
// remaining limits before its taints, so its reason for pods beside a
// spent limit names only the limit.
func StillRefused(a AskedPool) string {
	var why []string
	for _, t := range a.Untolerated {
		taint := t.Key
		if t.Value != "" {
			taint += "=" + t.Value
		}
		why = append(why, fmt.Sprintf("they do not tolerate its taint %s:%s", taint, t.Effect))
	}
	if len(a.VolumeZones) > 0 {
		why = append(why, fmt.Sprintf("their volumes are bound to %s, which it does not reach", strings.Join(a.VolumeZones, ", ")))
	}
	return strings.Join(why, "; ")
}

// Unsaid is what keeps pods off a pool that upstream's reasons for them
// do not already name: a taint its reasons quote, or a volume's zone
// when they name the volume requirements, is said.
func Unsaid(a AskedPool, reasons []string) AskedPool {
	all := strings.Join(reasons, "\n")
	out := AskedPool{Pool: a.Pool}
	for _, t := range a.Untolerated {
		taint := "taint=" + t.Key
		if t.Value != "" {
			taint += "=" + t.Value
		}
		if !strings.Contains(all, taint+":"+t.Effect+")") {
			out.Untolerated = append(out.Untolerated, t)
		}
	}
	if !strings.Contains(all, "incompatible volume requirements") {
		out.VolumeZones = a.VolumeZones
	}
	return out
}

// refusals are the pools a workload's Pending pods select that would
// refuse them whatever their limits allow, for what upstream's reasons
// do not already say.
func refusals(p Placement) []Refusal {
	if len(p.Pending) == 0 {
		return nil
	}
	reasons := slices.Sorted(maps.Keys(p.Pending))
	var out []Refusal
	for _, a := range p.Asks {
		if why := StillRefused(Unsaid(a, reasons)); why != "" {
			out = append(out, Refusal{Pool: a.Pool, Why: why})
		}
	}
	return out
}

// stillRefusedFix is the fix of what StillRefused names, "" for none.
func stillRefusedFix(a AskedPool) string {
	var fix []string
	if len(a.Untolerated) > 0 {
		var tols []string
		for _, t := range a.Untolerated {
			tols = append(tols, toleration(t.Key, t.Value, t.Effect))
		}
		fix = append(fix, fmt.Sprintf("add the toleration %s of that pool to its pod template", strings.Join(tols, " and ")))
	}
	if len(a.VolumeZones) > 0 {
		fix = append(fix, fmt.Sprintf("add %s to the pool's zones (nodePools.%s.zones) or move the volume", strings.Join(a.VolumeZones, " or "), a.Pool))
	}
	return strings.Join(fix, ", and ")
}

// hintFor is the fix upstream's reason points to, for the pool the pods
// ask for: upstream's reasons do not say which pool refused for which,
// and the toleration of another pool would put the pods there.
func hintFor(reason string, asks []AskedPool) string {
	if strings.Contains(reason, "exceed limits for nodepool") {
		// Room under the limit would not place it while the pool it
		// selects refuses it for more: that fix comes first.
		for _, a := range asks {
			if fix := stillRefusedFix(a); fix != "" {
				return fmt.Sprintf("even under its limits, pool %s would refuse it (%s): %s; then, if it still stays, raise the pool's limits (nodePools.%s.limits)", a.Pool, StillRefused(a), fix, a.Pool)
			}
		}
	}
	if m := taintReason().FindStringSubmatch(reason); m != nil {
		for _, a := range asks {
			if len(a.Untolerated) == 0 {
				continue
			}
			var tols []string
			for _, t := range a.Untolerated {
				tols = append(tols, toleration(t.Key, t.Value, t.Effect))
			}
			others := ""
			if len(asks) > 1 {
				var names []string
				for _, o := range asks {
					names = append(names, o.Pool)
				}
				others = fmt.Sprintf(" (the heaviest of those they allow: %s)", strings.Join(names, ", "))
			}
			return fmt.Sprintf("its selectors ask for pool %s%s: add the toleration %s of that pool to its pod template", a.Pool, others, strings.Join(tols, " and "))
		}
		if len(asks) == 0 {
			return "add the toleration " + toleration(m[1], m[2], m[3]) + " to its pod template, or select a pool or node group it tolerates"
		}
		// The pools its selectors allow take it as it is: the taints
		// named are of pools it cannot select, and the fix is in the
		// rest of the reason (a volume's zone, a limit).
	}
	if m := labelReason().FindStringSubmatch(reason); m != nil {
		if m[1] == "karpenter.sh/provisioner-name" {
			// v1alpha5's label: v1 nodes carry the pool's name under
			// karpenter.sh/nodepool instead.
			return "karpenter.sh/provisioner-name is the v1alpha5 label, which no v1 node carries: select the pool with karpenter.sh/nodepool (same value) instead"
		}
		if m[2] != "" {
			return fmt.Sprintf("use %q: no pool or instance type has %q", m[2], m[1])
		}
		return fmt.Sprintf("select a label a pool sets or an instance type has: no pool or instance type has %q", m[1])
	}
	if m := volumeReason().FindStringSubmatch(reason); m != nil {
		return fmt.Sprintf("its volume is bound to %s, which no pool it may use reaches: add that zone to the pool (nodePools.<pool>.zones), or move the volume", m[1])
	}
	switch {
	case strings.Contains(reason, " nodes of node group "):
		return "the group's nodes have no room for it: raise the group's size (nodeGroups.<group>.size, and the group's desired size in EKS) or its instance type, or lower what the workload requests"
	case strings.Contains(reason, "immediate volume binding mode must be bound"):
		return "Karpenter ignores a pod whose claim waits for an Immediate class to bind it: bind the claim, or use a WaitForFirstConsumer class (EBS's classes are)"
	case strings.HasPrefix(reason, "ignoring pod, "):
		return "Karpenter ignores the pod until its claims resolve: give the PersistentVolumeClaims (and their StorageClasses) with the workloads, as the cluster has them"
	case strings.Contains(reason, "exceed limits for nodepool"):
		return "raise the pool's limits (nodePools.<pool>.limits), or lower what the workload requests"
	case strings.Contains(reason, "no instance type"), strings.Contains(reason, "filtered out all"):
		return "no instance type a pool may launch fits its requests and selectors: lower its requests, or widen a pool's instance types"
	}
	return ""
}

// toleration writes the toleration of a taint as a pod template says it.
func toleration(key, value, effect string) string {
	if value == "" {
		return fmt.Sprintf("{key: %s, operator: Exists, effect: %s}", key, effect)
	}
	return fmt.Sprintf("{key: %s, value: %s, effect: %s}", key, value, effect)
}

// staying says how many of a workload's pods stay.
func staying(n, of int) string {
	switch {
	case n == of && n == 1:
		return "its pod stays"
	case n == of:
		return fmt.Sprintf("all %d pods stay", n)
	case n == 1:
		return fmt.Sprintf("1 of its %d pods stays", of)
	}
	return fmt.Sprintf("%d of its %d pods stay", n, of)
}
