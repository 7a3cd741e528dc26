package sched

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/samber/lo"
	"k8s.io/apimachinery/pkg/types"

	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"
	"sigs.k8s.io/karpenter/pkg/controllers/state"

	simulate "github.com/karpgen/karpgen/internal/simulate/wire"
)

// reasons say why no command removes a node this round: what Karpenter
// published about it (why it is no candidate, why consolidation leaves
// it), the budgets that allow its pool nothing now, a consolidateAfter
// not yet reached, or, for a node that would go alone, that another
// command acts first.
func (l *Captured) reasons(sn *state.StateNode, v simulate.NodeVerdict, alone map[string]aloneResult, budgets map[karpv1.DisruptionReason]map[string]int) []simulate.Reason {
	var out []simulate.Reason
	// Sorted: candidates are evaluated side by side, so the order their
	// events arrive in is not the same from run to run.
	for _, msg := range slices.Sorted(slices.Values(l.Recorder.byNode[v.Name])) {
		out = append(out, classify(msg, v))
	}
	if v.Drifted != "" && !slices.ContainsFunc(out, func(r simulate.Reason) bool { return r.Kind == "doNotDisrupt" || r.Kind == "pdb" }) {
		out = append(out, simulate.Reason{Kind: "drift", Upstream: fmt.Sprintf("Drifted (%s)", v.Drifted),
			Fix: "drift replaces one node a command, the oldest drifted first, as budgets allow: it waits its turn"})
	}
	r, candidate := alone[v.Name]
	if !candidate {
		if len(out) == 0 {
			out = append(out, l.notCandidate(sn, v, budgets))
		}
		return out
	}
	pool := r.cand.NodePool
	reason := karpv1.DisruptionReasonUnderutilized
	switch {
	case v.Drifted != "":
		reason = karpv1.DisruptionReasonDrifted
	case r.cand.IsEmpty():
		reason = karpv1.DisruptionReasonEmpty
	}
	if budgets[reason][pool.Name] == 0 {
		out = append(out, l.budget(pool, reason))
	}
	if reason != karpv1.DisruptionReasonDrifted && !sn.NodeClaim.StatusConditions().Get(karpv1.ConditionTypeConsolidatable).IsTrue() && pool.Spec.Disruption.ConsolidateAfter.Duration != nil {
		out = append(out, l.underConsolidateAfter(sn, pool))
	}
	if r.cmd != nil {
		c := command(r.method, *r.cmd)
		what := "deleted"
		if len(c.Replacements) > 0 {
			what = fmt.Sprintf("replaced by %s %s in %s ($%.4f/h)", c.Replacements[0].CapacityType, c.Replacements[0].InstanceType, c.Replacements[0].Zone, c.Replaced)
		}
		out = append(out, simulate.Reason{Kind: "later",
			Upstream: "Karpenter starts one method's commands a round, and another acts in this one",
			Fix:      fmt.Sprintf("by itself it would be %s: single-node consolidation takes it in a later round if nothing changes", what)})
	}
	if len(out) == 0 && reason == karpv1.DisruptionReasonUnderutilized {
		out = append(out, simulate.Reason{Kind: "cheaper", Upstream: "multi-node consolidation found no smaller set of nodes to run its pods",
			Fix: "none needed: no cheaper set of nodes runs its pods"})
	}
	return out
}

// notCandidate says why a node without a word from Karpenter is not a
// candidate of consolidation: it is drifted and waits on drift, or it
// is consolidatable by no method.
func (l *Captured) notCandidate(sn *state.StateNode, v simulate.NodeVerdict, budgets map[karpv1.DisruptionReason]map[string]int) simulate.Reason {
	pool := &karpv1.NodePool{}
	if err := l.c.client.Get(l.Ctx, clientKey(v.NodePool), pool); err == nil {
		consolidatable := sn.NodeClaim.StatusConditions().Get(karpv1.ConditionTypeConsolidatable).IsTrue()
		switch {
		case v.Drifted != "" && budgets[karpv1.DisruptionReasonDrifted][pool.Name] == 0:
			return l.budget(pool, karpv1.DisruptionReasonDrifted)
		case !consolidatable && pool.Spec.Disruption.ConsolidateAfter.Duration != nil:
			return l.underConsolidateAfter(sn, pool)
		case v.Pods == 0 && budgets[karpv1.DisruptionReasonEmpty][pool.Name] == 0:
			return l.budget(pool, karpv1.DisruptionReasonEmpty)
		}
	}
	return simulate.Reason{Kind: "node", Upstream: "no disruption method takes it as a candidate"}
}

// budget is a pool's budgets allowing no disruption for a reason now.
func (l *Captured) budget(pool *karpv1.NodePool, reason karpv1.DisruptionReason) simulate.Reason {
	return simulate.Reason{Kind: "budget",
		Upstream: fmt.Sprintf("No allowed disruptions for disruption reason %s due to blocking budget", reason),
		Fix:      fmt.Sprintf("NodePool %s's disruption.budgets allow no %s disruption at %s: it goes when a budget allows one", pool.Name, reason, l.Clock.Now().UTC().Format(time.RFC3339))}
}

// underConsolidateAfter is a node whose pool's consolidateAfter has not
// passed since its last pod event.
func (l *Captured) underConsolidateAfter(sn *state.StateNode, pool *karpv1.NodePool) simulate.Reason {
	after := lo.FromPtr(pool.Spec.Disruption.ConsolidateAfter.Duration)
	last := sn.NodeClaim.Status.LastPodEventTime.Time
	if last.IsZero() {
		if c := sn.NodeClaim.StatusConditions().Get(karpv1.ConditionTypeInitialized); c != nil {
			last = c.LastTransitionTime.Time
		}
	}
	return simulate.Reason{Kind: "consolidateAfter", Upstream: "consolidateAfter window not yet elapsed",
		Fix: fmt.Sprintf("its last pod event was at %s and NodePool %s's consolidateAfter is %s: consolidatable from %s",
			last.UTC().Format(time.RFC3339), pool.Name, after, last.Add(after).UTC().Format(time.RFC3339))}
}

// classify names what an event of Karpenter's is about, and what would
// let the node go.
func classify(msg string, v simulate.NodeVerdict) simulate.Reason {
	msg = strings.TrimSpace(msg)
	r := simulate.Reason{Upstream: msg}
	low := strings.ToLower(msg)
	switch {
	case strings.Contains(msg, karpv1.DoNotDisruptAnnotationKey) && strings.Contains(low, "pod"):
		r.Kind, r.Fix = "doNotDisrupt", "a pod on it has karpenter.sh/do-not-disrupt: \"true\"; it goes once that pod ends or loses the annotation"
	case strings.Contains(msg, karpv1.DoNotDisruptAnnotationKey):
		r.Kind, r.Fix = "doNotDisrupt", "the node has karpenter.sh/do-not-disrupt: \"true\"; remove it to let Karpenter disrupt the node"
	case strings.Contains(low, "pdb prevents pod evictions"), strings.Contains(low, "multiple pdbs"):
		r.Kind, r.Fix = "pdb", "a PodDisruptionBudget of a pod on it allows no eviction now (status.disruptionsAllowed 0): it goes when the budget allows one"
	case strings.Contains(low, "spottospotconsolidation is disabled"):
		r.Kind, r.Fix = "spotToSpot", "turn on the SpotToSpotConsolidation feature gate (karpenter.featureGates.spotToSpotConsolidation) to let a spot node be replaced by a cheaper spot node"
	case strings.Contains(low, "spottospotconsolidation requires"):
		r.Kind, r.Fix = "spotToSpot", fmt.Sprintf("allow NodePool %s more instance types cheaper than %s: spot-to-spot consolidation needs 15", v.NodePool, v.InstanceType)
	case strings.Contains(low, "minvalues"), strings.HasPrefix(low, "filtering by price"):
		r.Kind, r.Fix = "minValues", fmt.Sprintf("the cheaper types left do not meet NodePool %s's minValues: lower them or allow more types", v.NodePool)
	case strings.Contains(low, "can't replace with a cheaper node"):
		r.Kind, r.Fix = "cheaper", "none needed: no cheaper node runs its pods"
	case strings.Contains(low, "can't remove without creating"):
		r.Kind, r.Fix = "fits", "its pods would need more than one new node: room on the other nodes, or a larger type in the pool, lets it go"
	case strings.Contains(low, "consolidation disabled"), strings.Contains(low, "consolidation policy whenempty"):
		r.Kind, r.Fix = "policy", fmt.Sprintf("NodePool %s's consolidationPolicy or consolidateAfter keeps it: WhenEmptyOrUnderutilized lets Karpenter consolidate it", v.NodePool)
	case strings.Contains(low, "incompatible"), strings.Contains(low, "did not tolerate"), strings.Contains(low, "no instance type"), strings.Contains(low, "would schedule against uninitialized"), strings.Contains(low, "pods"):
		r.Kind, r.Fix = "fits", "a pod on it fits on no other node and no node Karpenter would launch"
	default:
		r.Kind = "node"
	}
	return r
}

// clientKey is the key of a cluster-scoped object.
func clientKey(name string) types.NamespacedName { return types.NamespacedName{Name: name} }
