// Package sched runs sigs.k8s.io/karpenter's scheduler on a request of
// `karpgen simulate`: the NodePools as Karpenter reads them, the
// instance types as its cloud provider interface gives them, the
// workloads' pods, and the kept node groups before Karpenter.
package sched

import (
	"cmp"
	"context"
	"flag"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/record"
	"k8s.io/utils/clock"
	fakeclient "sigs.k8s.io/controller-runtime/pkg/client/fake"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/yaml"

	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"
	"sigs.k8s.io/karpenter/pkg/cloudprovider"
	"sigs.k8s.io/karpenter/pkg/cloudprovider/fake"
	"sigs.k8s.io/karpenter/pkg/controllers/provisioning/scheduling"
	"sigs.k8s.io/karpenter/pkg/controllers/state"
	"sigs.k8s.io/karpenter/pkg/events"
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
	ctrllog.SetLogger(logr.Discard())
	karpv1.WellKnownLabels = karpv1.WellKnownLabels.Insert(req.WellKnownLabels...)
	karpv1.WellKnownResources.Insert(awsResources...)

	pools, err := nodePools(req.NodePools)
	if err != nil {
		return nil, err
	}
	// A node class's instance types are one list, whichever pools use
	// it, as the provider caches them per node class.
	byClass := map[string][]*cloudprovider.InstanceType{}
	its := map[string][]*cloudprovider.InstanceType{}
	var all []*cloudprovider.InstanceType
	for _, np := range pools {
		class := np.Spec.Template.Spec.NodeClassRef.Name
		if _, done := byClass[class]; !done {
			for _, w := range req.InstanceTypes[class] {
				it, err := instanceType(w, req.WellKnownLabels)
				if err != nil {
					return nil, err
				}
				byClass[class] = append(byClass[class], it)
			}
			all = append(all, byClass[class]...)
		}
		its[np.Name] = byClass[class]
	}

	resp := &simulate.Response{Workloads: make([]simulate.Placement, len(req.Workloads))}
	var pods, daemons []*corev1.Pod
	// fallback is, for a pod that asks for no node group, a group that
	// would run it anyway.
	fallback := map[*corev1.Pod]string{}
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
				add(&pl.NodeGroups, group, wl.replicas)
			}
			continue
		}
		for p := range wl.replicas {
			pod := wl.pod(i, p)
			if anyway != "" {
				fallback[pod] = anyway
			}
			pods = append(pods, pod)
		}
	}

	// Karpenter's defaults: its flags unset (karpgen runs this binary
	// with an empty environment, so no variable of the caller's changes
	// the scheduling).
	ctx := context.Background()
	opts := &options.Options{}
	fs := &options.FlagSet{FlagSet: flag.NewFlagSet("karpenter", flag.ContinueOnError)}
	opts.AddFlags(fs)
	if err := opts.Parse(fs); err != nil {
		return nil, err
	}
	ctx = options.ToContext(ctx, opts)
	client := fakeclient.NewFakeClient()
	clk := clock.RealClock{}
	provider := fake.NewCloudProvider()
	provider.InstanceTypes = all
	cluster := state.NewCluster(clk, client, provider)
	topology, err := scheduling.NewTopology(ctx, client, cluster, nil, pools, its, pods)
	if err != nil {
		return nil, fmt.Errorf("topology: %w", err)
	}
	s := scheduling.NewScheduler(ctx, client, pools, cluster, nil, topology, its, daemons,
		events.NewRecorder(&record.FakeRecorder{}), clk, nil, nil)
	results, err := s.Solve(ctx, pods)
	if err != nil {
		return nil, fmt.Errorf("scheduling: %w", err)
	}

	for i, nc := range results.NewNodeClaims {
		node := simulate.Node{NodePool: nc.NodePoolName, Pods: len(nc.Pods), Requests: map[string]string{}}
		node.InstanceTypes = byPrice(nc.InstanceTypeOptions, nc.Requirements)
		for k, q := range resources.RequestsForPods(nc.Pods...) {
			node.Requests[string(k)] = q.String()
		}
		resp.Nodes = append(resp.Nodes, node)
		for _, p := range nc.Pods {
			pl := &resp.Workloads[workloadOf(p)]
			if pl.Nodes == nil {
				pl.Nodes = map[int]int{}
			}
			pl.Nodes[i]++
		}
		// The DaemonSets that run on it: those its taints and labels
		// let in, which the scheduler counted as its overhead.
		for _, d := range daemons {
			if karpsched.Taints(nc.Spec.Taints).ToleratesPod(d) == nil && nc.Requirements.IsCompatible(karpsched.NewStrictPodRequirements(d), karpsched.AllowUndefinedWellKnownLabels) {
				pl := &resp.Workloads[workloadOf(d)]
				if pl.Nodes == nil {
					pl.Nodes = map[int]int{}
				}
				pl.Nodes[i]++
			}
		}
	}
	for _, d := range daemons {
		pl := &resp.Workloads[workloadOf(d)]
		for _, g := range req.NodeGroups {
			if tolerates(d, g) && compatible(d, g) {
				add(&pl.NodeGroups, g.Name, 1)
			}
		}
	}
	for p, err := range results.PodErrors {
		pl := &resp.Workloads[workloadOf(p)]
		if g, ok := fallback[p]; ok {
			add(&pl.GroupOnly, g+": "+err.Error(), 1)
			continue
		}
		add(&pl.Pending, err.Error(), 1)
	}
	return resp, nil
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

// nodeGroups are the kept node group a workload's pods ask for (see
// nodeGroupFor), else "" and the first group that would run them anyway:
// kube-scheduler places a pod on any node it fits.
func (wl *workload) nodeGroups(groups []simulate.NodeGroup) (asked, anyway string) {
	pod := wl.pod(0, 0)
	if g := nodeGroupFor(pod, groups); g != "" {
		return g, ""
	}
	for _, g := range groups {
		if tolerates(pod, g) && compatible(pod, g) {
			return "", g.Name
		}
	}
	return "", ""
}

// nodeGroupFor is the kept node group a pod asks for: one whose labels
// satisfy its node selector and required affinity and whose taints it
// tolerates, when the pod names the group (selects one of its labels or
// tolerates one of its taints). A pod that names no group is left to
// Karpenter's pools, which is what the simulation is about; "" for none.
func nodeGroupFor(pod *corev1.Pod, groups []simulate.NodeGroup) string {
	for _, g := range groups {
		if tolerates(pod, g) && compatible(pod, g) && names(pod, g) {
			return g.Name
		}
	}
	return ""
}

func tolerates(pod *corev1.Pod, g simulate.NodeGroup) bool {
	return karpsched.Taints(taints(g)).ToleratesPod(pod) == nil
}

// compatible: the group's nodes satisfy the pod's node selector and
// required affinity. Their architecture is not in the profile: any is
// taken.
func compatible(pod *corev1.Pod, g simulate.NodeGroup) bool {
	reqs := karpsched.NewLabelRequirements(g.Labels)
	if !reqs.Has(corev1.LabelArchStable) {
		reqs.Add(karpsched.NewRequirement(corev1.LabelArchStable, corev1.NodeSelectorOpExists))
	}
	return reqs.Compatible(karpsched.NewStrictPodRequirements(pod)) == nil
}

func names(pod *corev1.Pod, g simulate.NodeGroup) bool {
	reqs := karpsched.NewStrictPodRequirements(pod)
	for k := range g.Labels {
		if reqs.Has(k) {
			return true
		}
	}
	for _, t := range taints(g) {
		if karpsched.Taints([]corev1.Taint{t}).ToleratesPod(pod) == nil {
			return true
		}
	}
	return false
}

func taints(g simulate.NodeGroup) []corev1.Taint {
	out := make([]corev1.Taint, len(g.Taints))
	for i, t := range g.Taints {
		out[i] = corev1.Taint{Key: t.Key, Value: t.Value, Effect: corev1.TaintEffect(t.Effect)}
	}
	return out
}

// byPrice names the instance types cheapest first, by their cheapest
// offering the node's requirements allow, and by name where prices tie,
// so that the same request always reads the same.
func byPrice(its cloudprovider.InstanceTypes, reqs karpsched.Requirements) []string {
	type priced struct {
		name  string
		price float64
	}
	var out []priced
	for _, it := range its {
		p := math.MaxFloat64
		for _, o := range it.Offerings.Available().Compatible(reqs) {
			p = min(p, o.Price)
		}
		out = append(out, priced{it.Name, p})
	}
	slices.SortFunc(out, func(a, b priced) int {
		if c := cmp.Compare(a.price, b.price); c != 0 {
			return c
		}
		return strings.Compare(a.name, b.name)
	})
	names := make([]string, len(out))
	for i, p := range out {
		names[i] = p.name
	}
	return names
}
