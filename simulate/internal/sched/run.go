// Package sched runs sigs.k8s.io/karpenter's scheduler on a request of
// `karpgen simulate`: the NodePools as Karpenter reads them, the
// instance types as its cloud provider interface gives them, the
// workloads' pods, and the kept node groups before Karpenter.
package sched

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/clock"
	"sigs.k8s.io/yaml"

	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"
	"sigs.k8s.io/karpenter/pkg/cloudprovider/fake"
	"sigs.k8s.io/karpenter/pkg/controllers/state"
	"sigs.k8s.io/karpenter/pkg/operator/options"
	karpsched "sigs.k8s.io/karpenter/pkg/scheduling"
	nodepoolutils "sigs.k8s.io/karpenter/pkg/utils/nodepool"
	"sigs.k8s.io/karpenter/pkg/utils/resources"

	simulate "github.com/karpgen/karpgen/internal/simulate/wire"
)

// awsResources are the AWS provider's extended resources, which it
// registers with Karpenter as it starts.
var awsResources = []corev1.ResourceName{"vpc.amazonaws.com/pod-eni", "aws.amazon.com/neuron", "aws.amazon.com/neuroncore", "habana.ai/gaudi", "vpc.amazonaws.com/efa"}

// Run places the request's workloads.
func Run(req *simulate.Request) (*simulate.Response, error) {
	pools, its, all, err := start(req)
	if err != nil {
		return nil, err
	}

	resp := &simulate.Response{Workloads: make([]simulate.Placement, len(req.Workloads))}
	var pods, daemons []*corev1.Pod
	// fallback is, for a pod that asks for no node group, a group that
	// would run it anyway.
	fallback := map[*corev1.Pod]string{}
	claims := map[*corev1.Pod][]corev1.PersistentVolumeClaim{}
	var grouped []groupPods
	total := 0
	for i, w := range req.Workloads {
		wl, err := decode(w)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", w.File, w.Line, err)
		}
		if total += wl.replicas; total > maxPods {
			return nil, fmt.Errorf("%s:%d: the workloads ask for more than %d pods in all: at most %d are simulated", w.File, w.Line, maxPods, maxPods)
		}
		pl := &resp.Workloads[i]
		pl.Kind, pl.Namespace, pl.Name, pl.DaemonSet = wl.kind, wl.namespace, wl.name, wl.daemonSet
		if wl.daemonSet {
			daemons = append(daemons, wl.pod(i, 0))
			continue
		}
		pl.Pods = wl.replicas
		// The node groups the profile keeps run before Karpenter: a pod
		// that asks for one of them lands there. A workload's pods are
		// alike, so its first decides for all.
		group, anyway := wl.nodeGroups(req.NodeGroups)
		if group != "" {
			if wl.replicas > 0 {
				grouped = append(grouped, groupPods{workload: i, group: group, wl: wl})
			}
			continue
		}
		for p := range wl.replicas {
			pod := wl.pod(i, p)
			if cs := wl.claimsOf(pod); len(cs) > 0 {
				claims[pod] = cs
			}
			if anyway != "" {
				fallback[pod] = anyway
			}
			pods = append(pods, pod)
		}
	}

	if err := placeOnGroups(resp, req.NodeGroups, grouped, daemons); err != nil {
		return nil, err
	}

	opts, err := karpenterOptions()
	if err != nil {
		return nil, err
	}
	ctx := options.ToContext(context.Background(), opts)
	kube := (&apiServer{}).client()
	provider := fake.NewCloudProvider()
	provider.InstanceTypes = all
	clk := clock.RealClock{}
	c := &cluster{ctx: ctx, client: kube, state: state.NewCluster(clk, kube, provider), clock: clk,
		pools: pools, its: its, daemons: daemons, round: map[*corev1.Pod]int{}}
	if err := c.addVolumes(req.Volumes); err != nil {
		return nil, err
	}
	pods, refused, assumed, err := c.withVolumes(pods, claims)
	if err != nil {
		return nil, err
	}
	resp.Assumed = assumed
	pending, rounds, err := c.settle(pods)
	if err != nil {
		return nil, err
	}
	maps.Copy(pending, refused)
	resp.Rounds = rounds

	for i, n := range c.nodes {
		node := simulate.Node{NodePool: n.pool, InstanceType: n.instanceType, Zone: n.zone, CapacityType: n.capacityType,
			Price: n.price, Round: n.round, Pods: len(n.pods), Daemons: len(n.daemons), Requests: map[string]string{}}
		for k, q := range resources.RequestsForPods(append(slices.Clone(n.pods), n.daemons...)...) {
			node.Requests[string(k)] = q.String()
		}
		resp.Nodes = append(resp.Nodes, node)
		for _, p := range append(slices.Clone(n.pods), n.daemons...) {
			pl := &resp.Workloads[workloadOf(p)]
			if pl.Nodes == nil {
				pl.Nodes = map[int]int{}
			}
			pl.Nodes[i]++
		}
	}
	for p, r := range c.round {
		pl := &resp.Workloads[workloadOf(p)]
		pl.Rounds = max(pl.Rounds, r)
	}
	for _, d := range daemons {
		pl := &resp.Workloads[workloadOf(d)]
		for _, g := range req.NodeGroups {
			if tolerates(d, g) && compatible(d, g) {
				add(&pl.NodeGroups, g.Name, 1)
			}
		}
	}
	for p, err := range pending {
		pl := &resp.Workloads[workloadOf(p)]
		if pl.Asks == nil {
			pl.Asks = asks(p, pools, c.volumeReqs[p.UID])
		}
		if g, ok := fallback[p]; ok {
			add(&pl.GroupOnly, g+": "+err.Error(), 1)
			continue
		}
		add(&pl.Pending, err.Error(), 1)
	}
	canon(resp, req, pools)
	return resp, nil
}

// asks are the pools a pod's selectors let it use, with their taints it
// does not tolerate: a pool whose template's labels and requirements are
// compatible with the pod's node selector and required affinity. volumes
// are the pod's volume topology alternatives: when the pool's
// requirements meet none, the zones they name keep the pod off it too.
func asks(p *corev1.Pod, pools []*karpv1.NodePool, volumes []karpsched.Requirements) []simulate.AskedPool {
	out := []simulate.AskedPool{}
	podReqs := karpsched.NewStrictPodRequirements(p)
	for _, np := range pools {
		reqs := karpsched.NewNodeSelectorRequirementsWithMinValues(np.Spec.Template.Spec.Requirements...)
		reqs.Add(karpsched.NewLabelRequirements(np.Spec.Template.Labels).Values()...)
		reqs.Add(karpsched.NewLabelRequirements(map[string]string{karpv1.NodePoolLabelKey: np.Name}).Values()...)
		if reqs.Compatible(podReqs, karpsched.AllowUndefinedWellKnownLabels) != nil {
			continue
		}
		ask := simulate.AskedPool{Pool: np.Name}
		for _, t := range np.Spec.Template.Spec.Taints {
			if karpsched.Taints([]corev1.Taint{t}).ToleratesPod(p) != nil {
				ask.Untolerated = append(ask.Untolerated, simulate.Taint{Key: t.Key, Value: t.Value, Effect: string(t.Effect)})
			}
		}
		if len(volumes) > 0 && !slices.ContainsFunc(volumes, func(v karpsched.Requirements) bool {
			return reqs.Compatible(v, karpsched.AllowUndefinedWellKnownLabels) == nil
		}) {
			zones := map[string]bool{}
			for _, v := range volumes {
				for _, z := range v.Get(corev1.LabelTopologyZone).Values() {
					zones[z] = true
				}
			}
			ask.VolumeZones = slices.Sorted(maps.Keys(zones))
		}
		out = append(out, ask)
	}
	return out
}

func add(m *map[string]int, k string, n int) {
	if *m == nil {
		*m = map[string]int{}
	}
	(*m)[k] += n
}

// nodePools reads the rendered nodepools.yaml.
func nodePools(docs string) ([]*karpv1.NodePool, error) {
	var out []*karpv1.NodePool
	for doc := range strings.SplitSeq(docs, "\n---\n") {
		var head struct{ Kind string }
		if err := yaml.Unmarshal([]byte(doc), &head); err != nil {
			return nil, fmt.Errorf("nodepools.yaml: %w", err)
		}
		if head.Kind != "NodePool" {
			continue
		}
		np := &karpv1.NodePool{}
		if err := yaml.UnmarshalStrict([]byte(doc), np); err != nil {
			return nil, fmt.Errorf("nodepools.yaml: %w", err)
		}
		// A static pool (replicas) keeps its count of nodes: the
		// provisioner leaves it out of scheduling, as upstream's does.
		if nodepoolutils.IsStatic(np) {
			continue
		}
		np.UID = types.UID("nodepool-" + np.Name)
		out = append(out, np)
	}
	// The scheduler tries pools in this order: by weight, the heaviest
	// first, as upstream's provisioner orders them before it schedules.
	nodepoolutils.OrderByWeight(out)
	return out, nil
}
