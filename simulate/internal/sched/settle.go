package sched

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/record"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/client"

	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"
	"sigs.k8s.io/karpenter/pkg/cloudprovider"
	"sigs.k8s.io/karpenter/pkg/controllers/provisioning/scheduling"
	"sigs.k8s.io/karpenter/pkg/controllers/state"
	"sigs.k8s.io/karpenter/pkg/events"
	"sigs.k8s.io/karpenter/pkg/operator/options"
	karpsched "sigs.k8s.io/karpenter/pkg/scheduling"
	"sigs.k8s.io/karpenter/pkg/utils/resources"
)

// maxRounds bounds the rounds: each places at least one pod, so a
// cluster settles in fewer rounds than it has pods, and a topology that
// places one pod a round is still cut short.
const maxRounds = 1000

// cluster is the simulated cluster: the API server's objects (a fake
// client), Karpenter's view of them (its cluster state), and the nodes
// launched so far.
type cluster struct {
	ctx     context.Context
	client  client.Client
	state   *state.Cluster
	clock   clock.Clock
	pools   []*karpv1.NodePool
	its     map[string][]*cloudprovider.InstanceType
	daemons []*corev1.Pod
	// volumeReqs are the pods' volume topology requirements, by pod.
	volumeReqs map[types.UID][]karpsched.Requirements

	nodes []*launched
	// round is, for each pod placed, the round that placed it.
	round map[*corev1.Pod]int
}

// launched is a node the simulation launched.
type launched struct {
	node         *corev1.Node
	pool         string
	instanceType string
	zone         string
	capacityType string
	price        float64
	round        int
	// pods are the workloads' pods bound to it, daemons the DaemonSets'.
	pods, daemons []*corev1.Pod
}

// settle schedules pods in rounds as Karpenter's provisioner does until
// nothing more is placed: each round's solve sees the nodes launched
// before it, with their real size, and the pods bound to them. It
// returns the pods that stay Pending, with the last round's reason, and
// the rounds it took: those that placed a pod, and the one that found
// nothing more to do when none did.
func (c *cluster) settle(pods []*corev1.Pod) (map[*corev1.Pod]error, int, error) {
	pending := pods
	errs := map[*corev1.Pod]error{}
	settled := 0
	for round := 1; len(pending) > 0 && round <= maxRounds; round++ {
		placed, roundErrs, err := c.solve(round, pending)
		if err != nil {
			return nil, round, err
		}
		errs = roundErrs
		if placed == 0 {
			settled = max(settled, 1)
			break
		}
		settled = round
		pending = slices.DeleteFunc(slices.Clone(pending), func(p *corev1.Pod) bool { return errs[p] == nil })
	}
	return errs, settled, nil
}

// solve runs one round: upstream's scheduler over the pods, then each
// new NodeClaim launched and every pod bound. It returns how many pods
// were placed and why the others were not.
func (c *cluster) solve(round int, pods []*corev1.Pod) (int, map[*corev1.Pod]error, error) {
	// The nodes in the order they launched, as the state's own order is
	// a map's.
	var stateNodes []*state.StateNode
	for n := range c.state.Nodes() {
		stateNodes = append(stateNodes, n)
	}
	slices.SortFunc(stateNodes, func(a, b *state.StateNode) int { return cmp.Compare(a.Node.Name, b.Node.Name) })
	topology, err := scheduling.NewTopology(c.ctx, c.client, c.state, stateNodes, c.pools, c.its, pods)
	if err != nil {
		return 0, nil, fmt.Errorf("topology: %w", err)
	}
	// The options upstream's provisioner schedules with.
	opts := options.FromContext(c.ctx)
	schedOpts := []scheduling.Options{
		scheduling.DisableReservedCapacityFallback,
		scheduling.NumConcurrentReconciles(int(math.Ceil(float64(opts.CPURequests) / 1000.0))),
		scheduling.MinValuesPolicy(opts.MinValuesPolicy),
	}
	if opts.PreferencePolicy == options.PreferencePolicyIgnore {
		schedOpts = append(schedOpts, scheduling.IgnorePreferences)
	}
	s := scheduling.NewScheduler(c.ctx, c.client, c.pools, c.state, stateNodes, topology, c.its, c.daemons,
		events.NewRecorder(&record.FakeRecorder{}), c.clock, c.volumeReqs, nil, schedOpts...)
	results, err := s.Solve(c.ctx, pods)
	if err != nil {
		return 0, nil, fmt.Errorf("scheduling: %w", err)
	}
	errs := maps.Clone(results.PodErrors)
	if errs == nil {
		errs = map[*corev1.Pod]error{}
	}
	placed := 0
	for _, en := range results.ExistingNodes {
		for _, p := range en.Pods {
			if err := c.bind(round, p, c.byName(en.Node.Name)); err != nil {
				return 0, nil, err
			}
			placed++
		}
	}
	for _, nc := range results.NewNodeClaims {
		n, err := c.launch(round, nc)
		if err != nil {
			// The provisioner refuses a launch its pool's limits no
			// longer allow: its pods wait for the next round.
			for _, p := range nc.Pods {
				errs[p] = err
			}
			continue
		}
		for _, p := range nc.Pods {
			if err := c.bind(round, p, n); err != nil {
				return 0, nil, err
			}
			placed++
		}
	}
	return placed, errs, nil
}

func (c *cluster) byName(name string) *launched {
	for _, n := range c.nodes {
		if n.node.Name == name {
			return n
		}
	}
	return nil
}

// launch makes a NodeClaim of the scheduler's a node as the provisioner
// and the AWS provider do: refused when its pool's limits are already
// reached; of the capacity type the provider prefers (reserved, then
// spot, then on-demand, as its getCapacityType); and of the cheapest
// offering of that capacity type among the instance types that fit its
// requests (on-demand fleets take the lowest price; spot fleets take
// price and capacity, which the simulation cannot know, so it takes the
// price). Ties go to the type's and the zone's name, so that a request
// always reads the same.
func (c *cluster) launch(round int, nc *scheduling.NodeClaim) (*launched, error) {
	pool := c.pool(nc.NodePoolName)
	if err := pool.Spec.Limits.ExceededBy(c.state.NodePoolResourcesFor(pool.Name)); err != nil {
		return nil, err
	}
	claim := nc.ToNodeClaim()
	reqs := karpsched.NewNodeSelectorRequirementsWithMinValues(claim.Spec.Requirements...)
	var fits []*cloudprovider.InstanceType
	for _, it := range nc.InstanceTypeOptions {
		if reqs.IsCompatible(it.Requirements, karpsched.AllowUndefinedWellKnownLabels) &&
			it.Offerings.Available().HasCompatible(reqs) &&
			resources.Fits(claim.Spec.Resources.Requests, it.Allocatable()) {
			fits = append(fits, it)
		}
	}
	capacityType := karpv1.CapacityTypeOnDemand
	for _, ct := range []string{karpv1.CapacityTypeReserved, karpv1.CapacityTypeSpot} {
		if !reqs.Get(karpv1.CapacityTypeLabelKey).Has(ct) {
			continue
		}
		if slices.ContainsFunc(fits, func(it *cloudprovider.InstanceType) bool {
			return len(it.Offerings.Available().Compatible(reqs).Compatible(capacityTypeIs(ct))) > 0
		}) {
			capacityType = ct
			break
		}
	}
	var best *cloudprovider.InstanceType
	var bestOffer *cloudprovider.Offering
	for _, it := range fits {
		for _, o := range it.Offerings.Available().Compatible(reqs).Compatible(capacityTypeIs(capacityType)) {
			if best == nil || c.cheaper(o, it, bestOffer, best) {
				best, bestOffer = it, o
			}
		}
	}
	if best == nil {
		return nil, fmt.Errorf("no instance type of NodePool %s fits the NodeClaim's requests as %s", pool.Name, capacityType)
	}

	n := &launched{pool: pool.Name, instanceType: best.Name, zone: bestOffer.Zone(), capacityType: capacityType, price: bestOffer.Price, round: round}
	name := fmt.Sprintf("%s-%d", pool.Name, len(c.nodes)+1)
	labels := map[string]string{}
	for key, r := range best.Requirements {
		if r.Operator() == corev1.NodeSelectorOpIn {
			labels[key] = r.Values()[0]
		}
	}
	maps.Copy(labels, claim.Labels)
	labels[corev1.LabelTopologyZone] = n.zone
	labels[karpv1.CapacityTypeLabelKey] = capacityType
	labels[corev1.LabelInstanceTypeStable] = best.Name
	labels[corev1.LabelHostname] = name
	labels[karpv1.NodeRegisteredLabelKey] = "true"
	labels[karpv1.NodeInitializedLabelKey] = "true"
	providerID := fmt.Sprintf("aws:///%s/i-%017d", n.zone, len(c.nodes)+1)
	capacity := best.Capacity.DeepCopy()
	allocatable := best.Allocatable()

	claim.Name = name
	claim.Labels = labels
	claim.Status.ProviderID = providerID
	claim.Status.NodeName = name
	claim.Status.Capacity, claim.Status.Allocatable = capacity, allocatable
	for _, t := range []string{karpv1.ConditionTypeLaunched, karpv1.ConditionTypeRegistered, karpv1.ConditionTypeInitialized} {
		claim.StatusConditions().SetTrue(t)
	}
	// The node as it is once initialized: its startup taints gone.
	n.node = &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels},
		Spec:       corev1.NodeSpec{ProviderID: providerID, Taints: slices.Clone(claim.Spec.Taints)},
		Status: corev1.NodeStatus{
			Capacity: capacity, Allocatable: allocatable,
			Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}},
		},
	}
	if err := c.client.Create(c.ctx, n.node); err != nil {
		return nil, err
	}
	c.state.UpdateNodeClaim(claim)
	if err := c.state.UpdateNode(c.ctx, n.node); err != nil {
		return nil, err
	}
	c.nodes = append(c.nodes, n)
	// The DaemonSets it runs, which the scheduler counted as its
	// overhead, bind too: the next round sees what is left.
	for _, d := range c.daemons {
		if karpsched.Taints(n.node.Spec.Taints).ToleratesPod(d) == nil &&
			karpsched.NewLabelRequirements(labels).IsCompatible(karpsched.NewStrictPodRequirements(d), karpsched.AllowUndefinedWellKnownLabels) {
			p := d.DeepCopy()
			p.Name, p.UID = d.Name+"-"+name, types.UID(string(d.UID)+"-"+name)
			if err := c.bindPod(p, n); err != nil {
				return nil, err
			}
			n.daemons = append(n.daemons, d)
		}
	}
	return n, nil
}

// bind binds a workload's pod to a node.
func (c *cluster) bind(round int, p *corev1.Pod, n *launched) error {
	if n == nil {
		return fmt.Errorf("scheduling: pod %s placed on a node the simulation did not launch", p.Name)
	}
	c.round[p] = round
	n.pods = append(n.pods, p)
	return c.bindPod(p.DeepCopy(), n)
}

func (c *cluster) bindPod(p *corev1.Pod, n *launched) error {
	p.Spec.NodeName = n.node.Name
	p.Status.Phase = corev1.PodRunning
	if err := c.client.Create(c.ctx, p); err != nil {
		return fmt.Errorf("binding %s: %w", p.Name, err)
	}
	return c.state.UpdatePod(c.ctx, p)
}

func (c *cluster) pool(name string) *karpv1.NodePool {
	for _, np := range c.pools {
		if np.Name == name {
			return np
		}
	}
	return nil
}

func capacityTypeIs(ct string) karpsched.Requirements {
	return karpsched.NewRequirements(karpsched.NewRequirement(karpv1.CapacityTypeLabelKey, corev1.NodeSelectorOpIn, ct))
}

// cheaper orders offerings by price, then instance type, then zone: of
// zones priced alike, the one with the fewest nodes so far, then the one
// launched into longest ago, then by name. EC2 does not say which zone
// a fleet takes among equal prices; a rule that looks at what was
// launched, not at names, keeps zones the request cannot tell apart
// interchangeable, which canon relies on.
func (c *cluster) cheaper(o *cloudprovider.Offering, it *cloudprovider.InstanceType, than *cloudprovider.Offering, thanIt *cloudprovider.InstanceType) bool {
	if o.Price != than.Price {
		return o.Price < than.Price
	}
	if it.Name != thanIt.Name {
		return it.Name < thanIt.Name
	}
	a, b := c.zoneUse(o.Zone()), c.zoneUse(than.Zone())
	if a.nodes != b.nodes {
		return a.nodes < b.nodes
	}
	if a.last != b.last {
		return a.last < b.last
	}
	return strings.Compare(o.Zone(), than.Zone()) < 0
}

// zoneUse is how many nodes were launched into a zone, and the number
// (from 1) of the last one; 0 for none.
func (c *cluster) zoneUse(zone string) (use struct{ nodes, last int }) {
	for i, n := range c.nodes {
		if n.zone == zone {
			use.nodes++
			use.last = i + 1
		}
	}
	return use
}
