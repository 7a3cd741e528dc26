package sched

import (
	"fmt"
	"slices"
	"strings"

	"sigs.k8s.io/karpenter/pkg/controllers/disruption"

	simulate "github.com/karpgen/karpgen/internal/simulate/wire"
)

// RunUpstreamDisruption is what Karpenter's own disruption controller
// starts on a request's captured cluster in one reconcile: its Reconcile
// run as its singleton runs it, the commands read from its orchestration
// queue. It is the reference Disrupt is held to.
func RunUpstreamDisruption(req *simulate.Request) ([]simulate.Command, error) {
	l, err := Load(req)
	if err != nil {
		return nil, err
	}
	ctrl := disruption.NewController(l.Ctx, l.Clock, l.Kube, l.Provisioner, l.Provider, l.Recorder, l.Cluster, l.Queue, l.Cost)
	if _, err := ctrl.Reconcile(l.Ctx); err != nil {
		return nil, fmt.Errorf("Karpenter's disruption controller: %w", err)
	}
	out := []simulate.Command{}
	for _, c := range l.Queue.GetCommands() {
		out = append(out, command(c.Method, *c))
	}
	slices.SortFunc(out, func(a, b simulate.Command) int {
		return strings.Compare(strings.Join(a.Nodes, ","), strings.Join(b.Nodes, ","))
	})
	return out, nil
}

// CompareDisruption tells how the view's commands differ from those
// Karpenter's controller started: by method, decision, the nodes each
// removes and the offerings it launches. Each line is one difference;
// none means they agree.
func CompareDisruption(mine *simulate.Disruption, theirs []simulate.Command) []string {
	key := func(c simulate.Command) string {
		var reps []string
		for _, r := range c.Replacements {
			reps = append(reps, fmt.Sprintf("%s %s %s %s", r.NodePool, r.CapacityType, r.InstanceType, r.Zone))
		}
		slices.Sort(reps)
		return fmt.Sprintf("%s (%s): %s %s -> [%s]", c.Method, c.Reason, c.Decision, strings.Join(c.Nodes, ","), strings.Join(reps, "; "))
	}
	var a, b []string
	for _, c := range mine.Commands {
		a = append(a, key(c))
	}
	for _, c := range theirs {
		b = append(b, key(c))
	}
	slices.Sort(a)
	slices.Sort(b)
	var out []string
	for _, k := range a {
		if !slices.Contains(b, k) {
			out = append(out, "the view starts "+k+"; Karpenter does not")
		}
	}
	for _, k := range b {
		if !slices.Contains(a, k) {
			out = append(out, "Karpenter starts "+k+"; the view does not")
		}
	}
	return out
}
