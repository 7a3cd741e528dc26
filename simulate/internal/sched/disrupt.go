package sched

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/client"

	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"
	"sigs.k8s.io/karpenter/pkg/cloudprovider"
	"sigs.k8s.io/karpenter/pkg/cloudprovider/fake"
	"sigs.k8s.io/karpenter/pkg/controllers/disruption"
	nodeclaimdisruption "sigs.k8s.io/karpenter/pkg/controllers/nodeclaim/disruption"
	"sigs.k8s.io/karpenter/pkg/controllers/provisioning"
	"sigs.k8s.io/karpenter/pkg/controllers/state"
	"sigs.k8s.io/karpenter/pkg/events"
	"sigs.k8s.io/karpenter/pkg/state/cost"
	disruptionutils "sigs.k8s.io/karpenter/pkg/utils/disruption"
	podutils "sigs.k8s.io/karpenter/pkg/utils/pod"

	simulate "github.com/karpgen/karpgen/internal/simulate/wire"
)

// Captured is a captured cluster loaded into Karpenter's own controllers:
// the API server, its cluster state, the provisioner and the disruption
// queue, at the capture's instant. Disrupt decides on it;
// RunUpstreamDisruption runs Karpenter's disruption controller on
// another loaded from the same request.
type Captured struct {
	Ctx         context.Context
	Kube        client.Client
	Cluster     *state.Cluster
	Clock       clock.Clock
	Provider    *fake.CloudProvider
	Provisioner *provisioning.Provisioner
	Queue       *disruption.Queue
	Cost        *cost.ClusterCost
	Recorder    *Recorder

	c *cluster
}

// Load loads a request's captured cluster: the profile's pools (each
// with the hash Karpenter's NodePool hash controller gives it), the
// captured nodes, NodeClaims, pods, budgets and DaemonSets, and each
// NodeClaim's Drifted and Consolidatable conditions as Karpenter's
// NodeClaim disruption controller sets them against those pools.
func Load(req *simulate.Request) (*Captured, error) {
	if req.Cluster == nil {
		return nil, fmt.Errorf("the request holds no cluster")
	}
	pools, its, all, err := start(req)
	if err != nil {
		return nil, err
	}
	cl, err := decodeCluster(req.Cluster)
	if err != nil {
		return nil, err
	}
	var args []string
	if g := req.Cluster.FeatureGates; g != "" {
		args = append(args, "--feature-gates="+g)
	}
	opts, err := karpenterOptions(args...)
	if err != nil {
		return nil, err
	}
	c, api, provider := newCluster(opts, stillClock{cl.now}, pools, its, all)
	ctx, kube, st, clk := c.ctx, c.client, c.state, c.clock
	if err := c.addPools(true); err != nil {
		return nil, err
	}
	if err := c.load(api, cl); err != nil {
		return nil, err
	}
	marker := nodeclaimdisruption.NewController(clk, kube, provider)
	claims := &karpv1.NodeClaimList{}
	if err := kube.List(ctx, claims); err != nil {
		return nil, err
	}
	for i := range claims.Items {
		if _, err := marker.Reconcile(ctx, &claims.Items[i]); err != nil {
			return nil, fmt.Errorf("NodeClaim %s: %w", claims.Items[i].Name, err)
		}
	}
	if err := c.track(api); err != nil {
		return nil, err
	}
	clusterCost := cost.NewClusterCost(ctx, provider, kube)
	for _, np := range pools {
		clusterCost.UpdateOfferings(ctx, np, its[np.Name])
	}
	if err := kube.List(ctx, claims); err != nil {
		return nil, err
	}
	for i := range claims.Items {
		// A claim of an offering the pool no longer has adds no cost,
		// as in the controller, whose informer logs it and goes on.
		_ = clusterCost.UpdateNodeClaim(ctx, &claims.Items[i])
	}
	rec := &Recorder{}
	prov := provisioning.NewProvisioner(kube, rec, provider, st, clk, nil, nil)
	return &Captured{Ctx: ctx, Kube: kube, Cluster: st, Clock: clk, Provider: provider, Provisioner: prov,
		Queue: disruption.NewQueue(kube, rec, st, clk, prov), Cost: clusterCost, Recorder: rec, c: c}, nil
}

// Recorder keeps the events Karpenter publishes about nodes: the words
// it explains a node it leaves alone with.
type Recorder struct {
	mu     sync.Mutex
	byNode map[string][]string
}

var _ events.Recorder = (*Recorder)(nil)

// Publish keeps each node's Unconsolidatable and DisruptionBlocked
// messages, each once, in the order published.
func (r *Recorder) Publish(evts ...events.Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, e := range evts {
		n, ok := e.InvolvedObject.(*corev1.Node)
		if !ok || n == nil || (e.Reason != events.Unconsolidatable && e.Reason != events.DisruptionBlocked) {
			continue
		}
		if r.byNode == nil {
			r.byNode = map[string][]string{}
		}
		if !slices.Contains(r.byNode[n.Name], e.Message) {
			r.byNode[n.Name] = append(r.byNode[n.Name], e.Message)
		}
	}
}

// Disrupt is what Karpenter's disruption controller decides on a
// request's captured cluster this round: its methods in its order, each
// with the candidates and budgets it computes them from, the first that
// makes a command acting; and, for every node of Karpenter's it leaves,
// why, in its own words.
func Disrupt(req *simulate.Request) (*simulate.Disruption, error) {
	l, err := Load(req)
	if err != nil {
		return nil, err
	}
	return l.Decide()
}

// Decide decides on the loaded cluster.
func (l *Captured) Decide() (*simulate.Disruption, error) {
	ctx, kube := l.Ctx, l.c.client
	methods := disruption.NewMethods(ctx, l.Clock, l.Cluster, kube, l.Provisioner, l.Provider, l.Recorder, l.Queue)
	out := &simulate.Disruption{Now: l.Clock.Now().UTC().Format("2006-01-02T15:04:05Z"), Commands: []simulate.Command{}, Nodes: []simulate.NodeVerdict{}}

	// Every node of Karpenter's alone: what single-node consolidation
	// makes of it, and the words it leaves it with.
	alone, budgets, err := l.alone()
	if err != nil {
		return nil, err
	}
	for _, m := range methods {
		cands, totals, err := l.candidates(m)
		if err != nil {
			return nil, err
		}
		if len(cands) == 0 {
			continue
		}
		var cmds []disruption.Command
		if _, single := m.(*disruption.SingleNodeConsolidation); single {
			cmds = firstAlone(cands, alone, budgets[m.Reason()])
		} else {
			if setter, ok := m.(disruption.NodePoolTotalsSetter); ok {
				setter.SetNodePoolTotals(totals)
			}
			b, err := disruption.BuildDisruptionBudgetMapping(ctx, l.Cluster, l.Clock, kube, l.Provider, l.Recorder, m.Reason())
			if err != nil {
				return nil, err
			}
			if cmds, err = m.ComputeCommands(ctx, b, cands...); err != nil {
				return nil, fmt.Errorf("%s: %w", methodName(m), err)
			}
		}
		cmds = slices.DeleteFunc(cmds, func(c disruption.Command) bool { return c.Decision() == disruption.NoOpDecision })
		if len(cmds) == 0 {
			continue
		}
		for _, c := range cmds {
			out.Commands = append(out.Commands, command(m, c))
		}
		break
	}
	out.Nodes, out.Others = l.verdicts(out.Commands, alone, budgets)
	return out, nil
}

// candidates are a method's candidates as the controller computes them,
// by node name: upstream takes them in its cluster state's map order,
// which no two runs share.
func (l *Captured) candidates(m disruption.Method) ([]*disruption.Candidate, map[string]disruption.NodePoolTotals, error) {
	cands, totals, err := disruption.GetCandidatesWithTotals(l.Ctx, l.Cluster, l.c.client, l.Recorder, l.Clock, l.Provider, m.ShouldDisrupt, m.Class(), l.Queue, l.Cost)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: candidates: %w", methodName(m), err)
	}
	slices.SortFunc(cands, func(a, b *disruption.Candidate) int { return strings.Compare(a.Name(), b.Name()) })
	return cands, totals, nil
}

// aloneResult is what single-node consolidation makes of one candidate.
type aloneResult struct {
	cand   *disruption.Candidate
	cmd    *disruption.Command
	method disruption.Method
}

// alone runs single-node consolidation on each of its candidates by
// itself (a method of its own each, so that none remembers the cluster
// as consolidated), with the pools' budgets for each reason.
func (l *Captured) alone() (map[string]aloneResult, map[karpv1.DisruptionReason]map[string]int, error) {
	ctx, kube := l.Ctx, l.c.client
	budgets := map[karpv1.DisruptionReason]map[string]int{}
	for _, r := range []karpv1.DisruptionReason{karpv1.DisruptionReasonEmpty, karpv1.DisruptionReasonDrifted, karpv1.DisruptionReasonUnderutilized} {
		b, err := disruption.BuildDisruptionBudgetMapping(ctx, l.Cluster, l.Clock, kube, l.Provider, &Recorder{}, r)
		if err != nil {
			return nil, nil, err
		}
		budgets[r] = b
	}
	probe := disruption.NewSingleNodeConsolidation(disruption.MakeConsolidation(l.Clock, l.Cluster, kube, l.Provisioner, l.Provider, l.Recorder, l.Queue))
	cands, _, err := l.candidates(probe)
	if err != nil {
		return nil, nil, err
	}
	// Each candidate's simulation reads the cluster state and writes
	// nothing to it: they run side by side, one a core.
	results := make([]aloneResult, len(cands))
	errs := make([]error, len(cands))
	workqueue.ParallelizeUntil(ctx, runtime.GOMAXPROCS(0), len(cands), func(i int) {
		cand := cands[i]
		results[i] = aloneResult{cand: cand}
		if budgets[karpv1.DisruptionReasonUnderutilized][cand.NodePool.Name] == 0 {
			return
		}
		// Validation waits, then decides again on the cluster as it is
		// then: on a captured cluster nothing changes in between, so it
		// would only double the work.
		m := disruption.NewSingleNodeConsolidation(disruption.MakeConsolidation(l.Clock, l.Cluster, kube, l.Provisioner, l.Provider, l.Recorder, l.Queue),
			disruption.WithValidator(stillValidator{}))
		cmds, err := m.ComputeCommands(ctx, budgets[karpv1.DisruptionReasonUnderutilized], cand)
		if err != nil {
			errs[i] = fmt.Errorf("single-node consolidation of %s: %w", cand.Name(), err)
			return
		}
		if len(cmds) > 0 && cmds[0].Decision() != disruption.NoOpDecision {
			results[i].cmd, results[i].method = &cmds[0], m
		}
	})
	if err := errors.Join(errs...); err != nil {
		return nil, nil, err
	}
	out := map[string]aloneResult{}
	for _, r := range results {
		out[r.cand.Name()] = r
	}
	return out, budgets, nil
}

// firstAlone is single-node consolidation's command: the first
// candidate, in its order, that consolidates alone. Upstream sorts the
// candidates by savings for their disruption, then takes one of each
// pool in turn, the pools in an order of a map's; here they take turns
// by name.
func firstAlone(cands []*disruption.Candidate, alone map[string]aloneResult, budget map[string]int) []disruption.Command {
	slices.SortStableFunc(cands, func(a, b *disruption.Candidate) int { return cmp.Compare(b.SavingsRatio(), a.SavingsRatio()) })
	byPool := map[string][]*disruption.Candidate{}
	for _, c := range cands {
		byPool[c.NodePool.Name] = append(byPool[c.NodePool.Name], c)
	}
	pools := slices.Sorted(maps.Keys(byPool))
	for i := 0; ; i++ {
		more := false
		for _, p := range pools {
			if i >= len(byPool[p]) {
				continue
			}
			more = true
			c := byPool[p][i]
			if budget[p] == 0 {
				continue
			}
			if r := alone[c.Name()]; r.cmd != nil {
				return []disruption.Command{*r.cmd}
			}
		}
		if !more {
			return nil
		}
	}
}

// methodName is a method as the disruption controller's logs name it.
func methodName(m disruption.Method) string {
	switch m.(type) {
	case *disruption.Emptiness:
		return "emptiness"
	case *disruption.StaticDrift:
		return "static drift"
	case *disruption.Drift:
		return "drift"
	case *disruption.MultiNodeConsolidation:
		return "multi-node consolidation"
	case *disruption.SingleNodeConsolidation:
		return "single-node consolidation"
	case *disruption.Repair:
		return "repair"
	}
	return fmt.Sprintf("%T", m)
}

// command is a command as the answer gives it: its candidates by node
// name, and each replacement at the cheapest offering its NodeClaim
// allows, which the AWS provider launches.
func command(m disruption.Method, c disruption.Command) simulate.Command {
	out := simulate.Command{Reason: string(m.Reason()), Method: methodName(m), Decision: string(c.Decision()), Nodes: []string{}}
	for _, cand := range c.Candidates {
		out.Nodes = append(out.Nodes, cand.Name())
		out.Price += cand.Price
	}
	slices.Sort(out.Nodes)
	for _, r := range c.Replacements {
		rep := simulate.Replacement{NodePool: r.NodePoolName, Options: len(r.InstanceTypeOptions)}
		var best *cloudprovider.Offering
		for _, it := range r.InstanceTypeOptions {
			o := it.Offerings.Available().Compatible(r.Requirements).Cheapest()
			if o != nil && (best == nil || o.Price < best.Price || o.Price == best.Price && it.Name < rep.InstanceType) {
				best, rep.InstanceType = o, it.Name
			}
		}
		if best != nil {
			rep.Zone, rep.CapacityType, rep.Price = best.Zone(), best.CapacityType(), best.Price
		}
		out.Replaced += rep.Price
		out.Replacements = append(out.Replacements, rep)
	}
	return out
}

// verdicts are Karpenter's nodes, each with the command that removes it
// or why none does.
func (l *Captured) verdicts(cmds []simulate.Command, alone map[string]aloneResult, budgets map[karpv1.DisruptionReason]map[string]int) ([]simulate.NodeVerdict, int) {
	in := map[string]int{}
	for i, c := range cmds {
		for _, n := range c.Nodes {
			in[n] = i + 1
		}
	}
	out := []simulate.NodeVerdict{}
	others := 0
	for _, sn := range l.Cluster.DeepCopyNodes() {
		if sn.NodeClaim == nil || sn.Node == nil {
			others++
			continue
		}
		labels := sn.Labels()
		v := simulate.NodeVerdict{Name: sn.Node.Name, NodeClaim: sn.NodeClaim.Name, NodePool: labels[karpv1.NodePoolLabelKey],
			InstanceType: labels[corev1.LabelInstanceTypeStable], Zone: labels[corev1.LabelTopologyZone], CapacityType: labels[karpv1.CapacityTypeLabelKey],
			Command: in[sn.Node.Name]}
		if d := sn.NodeClaim.StatusConditions().Get(karpv1.ConditionTypeDrifted); d.IsTrue() {
			v.Drifted = d.Reason
		}
		v.Price, v.Pods = l.price(labels, v.NodePool), len(reschedulable(l, sn))
		if v.Command == 0 {
			v.Reasons = l.reasons(sn, v, alone, budgets)
		}
		out = append(out, v)
	}
	slices.SortFunc(out, func(a, b simulate.NodeVerdict) int { return strings.Compare(a.Name, b.Name) })
	return out, others
}

// price is a node's offering's price as its pool's instance types give
// it, 0 when they do not hold it.
func (l *Captured) price(labels map[string]string, pool string) float64 {
	for _, it := range l.c.its[pool] {
		if it.Name == labels[corev1.LabelInstanceTypeStable] {
			return disruptionutils.ResolveOfferingPrice(labels, it)
		}
	}
	return 0
}

// reschedulable are the pods on a node that would move were it removed.
func reschedulable(l *Captured, sn *state.StateNode) []*corev1.Pod {
	pods, err := sn.Pods(l.Ctx, l.c.client)
	if err != nil {
		return nil
	}
	return slices.DeleteFunc(pods, func(p *corev1.Pod) bool { return !podutils.IsReschedulable(p) })
}

// stillValidator passes a command as it is: validation's second look at
// the cluster sees a captured cluster unchanged.
type stillValidator struct{}

func (stillValidator) Validate(_ context.Context, cmd disruption.Command, _ time.Duration) (disruption.Command, error) {
	return cmd, nil
}
