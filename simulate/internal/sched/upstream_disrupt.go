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

// CompareDisruption holds the view's commands to those Karpenter's
// controller started in several reconciles of the same state. Upstream
// draws among equals at random (its candidates come in a map's order,
// its sorts are not stable, and validation simulates again in another
// order), so one state may give several answers: the view's must be
// one of them. It returns the answers upstream gave, by how often, and
// whether the view's is among them.
func CompareDisruption(mine *simulate.Disruption, runs [][]simulate.Command) (answers map[string]int, agree bool) {
	answers = map[string]int{}
	for _, cmds := range runs {
		answers[CommandsKey(cmds)]++
	}
	return answers, answers[CommandsKey(mine.Commands)] > 0
}

// CommandsKey names a round's commands: by method, decision, the nodes
// each removes and the offerings it launches.
func CommandsKey(cmds []simulate.Command) string {
	var keys []string
	for _, c := range cmds {
		var reps []string
		for _, r := range c.Replacements {
			reps = append(reps, fmt.Sprintf("%s %s %s %s", r.NodePool, r.CapacityType, r.InstanceType, r.Zone))
		}
		slices.Sort(reps)
		keys = append(keys, fmt.Sprintf("%s (%s): %s %s -> [%s]", c.Method, c.Reason, c.Decision, strings.Join(c.Nodes, ","), strings.Join(reps, "; ")))
	}
	slices.Sort(keys)
	if len(keys) == 0 {
		return "no command"
	}
	return strings.Join(keys, " | ")
}
