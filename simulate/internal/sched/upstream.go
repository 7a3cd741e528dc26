package sched

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/record"
	"k8s.io/utils/clock"

	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"
	"sigs.k8s.io/karpenter/pkg/cloudprovider"
	"sigs.k8s.io/karpenter/pkg/cloudprovider/fake"
	"sigs.k8s.io/karpenter/pkg/controllers/provisioning"
	"sigs.k8s.io/karpenter/pkg/controllers/state"
	"sigs.k8s.io/karpenter/pkg/events"
	"sigs.k8s.io/karpenter/pkg/operator/options"
	karpsched "sigs.k8s.io/karpenter/pkg/scheduling"
	"sigs.k8s.io/karpenter/pkg/test/v1alpha1"

	simulate "github.com/karpgen/karpgen/internal/simulate/wire"
	"github.com/karpgen/karpgen/internal/util/keys"
)

// Upstream is what Karpenter's own provisioner does with a request when
// it runs until the cluster settles: its Schedule (pending pods as
// GetPendingPods finds them, managed and ready pools by weight, static
// pools left out, volume topology, DaemonSets from the API server,
// instance types truncated as it truncates them) and its
// CreateNodeClaims (with its limits check), each NodeClaim then launched
// by upstream's fake cloud provider (the cheapest type of the cheapest
// compatible offering), its node registered and the pods bound, round
// after round. It is the reference `simulate` is held to; the kept node
// groups are left out, as Karpenter never sees them.
type Upstream struct {
	// Nodes are the nodes launched, in order.
	Nodes []UpstreamNode
	// Pending are, by workload index, the pods left Pending.
	Pending map[int]int
	// Grouped are the workloads whose pods ask for a kept node group:
	// Karpenter never sees them.
	Grouped map[int]bool
	Rounds  int
}

// UpstreamNode is a node Karpenter's provisioner launched.
type UpstreamNode struct {
	Pool, InstanceType, Zone, CapacityType string
}

// RunUpstream runs Karpenter's provisioner on the request.
func RunUpstream(req *simulate.Request) (*Upstream, error) {
	pools, its, _, err := start(req)
	if err != nil {
		return nil, err
	}
	opts, err := karpenterOptions()
	if err != nil {
		return nil, err
	}
	c, api, provider := newCluster(opts, clock.RealClock{}, pools, its, nil)
	ctx, kube, st, clk := c.ctx, c.client, c.state, c.clock
	if err := c.addPools(false); err != nil {
		return nil, err
	}
	var pods []*corev1.Pod
	grouped := map[int]bool{}
	claims := map[*corev1.Pod][]corev1.PersistentVolumeClaim{}
	for i, w := range req.Workloads {
		wl, err := decode(w)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", w.File, w.Line, err)
		}
		if wl.daemonSet {
			p := wl.pod(i, 0)
			ds := &appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Name: wl.name, Namespace: wl.namespace},
				Spec: appsv1.DaemonSetSpec{Template: corev1.PodTemplateSpec{ObjectMeta: p.ObjectMeta, Spec: p.Spec}}}
			if err := kube.Create(ctx, ds); err != nil {
				return nil, err
			}
			c.daemons = append(c.daemons, p)
			continue
		}
		if group, _ := wl.nodeGroups(req.NodeGroups); group != "" {
			grouped[i] = true
			continue
		}
		for r := range wl.replicas {
			p := wl.pod(i, r)
			if cs := wl.claimsOf(p); len(cs) > 0 {
				claims[p] = cs
			}
			pods = append(pods, p)
		}
	}
	if err := c.addVolumes(req.Volumes); err != nil {
		return nil, err
	}
	if _, _, _, err := c.withVolumes(pods, claims); err != nil {
		return nil, err
	}
	// Each pod as kube-scheduler leaves it: not scheduled, Unschedulable.
	for _, p := range pods {
		p = p.DeepCopy()
		p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: corev1.PodReasonUnschedulable}}
		if err := kube.Create(ctx, p); err != nil {
			return nil, err
		}
	}

	prov := provisioning.NewProvisioner(kube, events.NewRecorder(&record.FakeRecorder{}), provider, st, clk, nil, nil)
	out := &Upstream{Pending: map[int]int{}, Grouped: grouped}
	for round := 1; round <= maxRounds; round++ {
		results, err := prov.Schedule(ctx)
		if err != nil {
			return nil, err
		}
		placed := 0
		for _, en := range results.ExistingNodes {
			for _, p := range en.Pods {
				if err := api.bind(ctx, st, p, en.Node.Name); err != nil {
					return nil, err
				}
				placed++
			}
		}
		// The provisioner creates the NodeClaims (refusing what the
		// limits no longer allow); the lifecycle controller launches each
		// through the cloud provider and the node registers.
		names, _ := prov.CreateNodeClaims(ctx, results.NewNodeClaims)
		for i, name := range names {
			if name == "" {
				continue
			}
			node, err := c.launchUpstream(provider, name)
			if err != nil {
				return nil, err
			}
			out.Nodes = append(out.Nodes, UpstreamNode{Pool: node.Labels[karpv1.NodePoolLabelKey], InstanceType: node.Labels[corev1.LabelInstanceTypeStable],
				Zone: node.Labels[corev1.LabelTopologyZone], CapacityType: node.Labels[karpv1.CapacityTypeLabelKey]})
			for _, p := range results.NewNodeClaims[i].Pods {
				if err := api.bind(ctx, st, p, node.Name); err != nil {
					return nil, err
				}
				placed++
			}
		}
		if placed == 0 {
			break
		}
		out.Rounds = round
	}
	for _, p := range api.pods {
		if p.Spec.NodeName == "" {
			out.Pending[workloadOf(p)]++
		}
	}
	return out, nil
}

// launchUpstream launches a NodeClaim the provisioner created as the
// lifecycle controller does: the cloud provider's Create, then the node
// it registers, initialized, with the DaemonSets' pods bound.
func (c *cluster) launchUpstream(provider *fake.CloudProvider, name string) (*corev1.Node, error) {
	claim := &karpv1.NodeClaim{}
	if err := c.client.Get(c.ctx, types.NamespacedName{Name: name}, claim); err != nil {
		return nil, err
	}
	created, err := provider.Create(c.ctx, claim)
	if err != nil {
		return nil, err
	}
	claim.Labels = created.Labels
	claim.Status = created.Status
	claim.Status.NodeName = name
	for _, t := range []string{karpv1.ConditionTypeLaunched, karpv1.ConditionTypeRegistered, karpv1.ConditionTypeInitialized} {
		claim.StatusConditions().SetTrue(t)
	}
	labels := maps.Clone(created.Labels)
	labels[corev1.LabelHostname] = name
	labels[karpv1.NodeRegisteredLabelKey] = "true"
	labels[karpv1.NodeInitializedLabelKey] = "true"
	node := &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels},
		Spec:       corev1.NodeSpec{ProviderID: created.Status.ProviderID, Taints: slices.Clone(claim.Spec.Taints)},
		Status: corev1.NodeStatus{Capacity: created.Status.Capacity, Allocatable: created.Status.Allocatable,
			Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}}},
	}
	if err := c.client.Create(c.ctx, node); err != nil {
		return nil, err
	}
	c.state.UpdateNodeClaim(claim)
	if err := c.state.UpdateNode(c.ctx, node); err != nil {
		return nil, err
	}
	for _, d := range c.daemons {
		if karpsched.Taints(node.Spec.Taints).ToleratesPod(d) == nil &&
			karpsched.NewLabelRequirements(labels).IsCompatible(karpsched.NewStrictPodRequirements(d), karpsched.AllowUndefinedWellKnownLabels) {
			p := d.DeepCopy()
			p.Name, p.UID = d.Name+"-"+name, types.UID(string(d.UID)+"-"+name)
			p.Spec.NodeName, p.Status.Phase = name, corev1.PodRunning
			if err := c.client.Create(c.ctx, p); err != nil {
				return nil, err
			}
			if err := c.state.UpdatePod(c.ctx, p); err != nil {
				return nil, err
			}
		}
	}
	return node, nil
}

// bind binds a pending pod the API server holds to a node, as
// kube-scheduler would.
func (a *apiServer) bind(ctx context.Context, st *state.Cluster, p *corev1.Pod, node string) error {
	for _, held := range a.pods {
		if held.UID != p.UID {
			continue
		}
		a.onNode[held.Spec.NodeName] = slices.DeleteFunc(a.onNode[held.Spec.NodeName], func(x *corev1.Pod) bool { return x == held })
		held.Spec.NodeName, held.Status.Phase = node, corev1.PodRunning
		held.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionTrue}}
		a.onNode[node] = append(a.onNode[node], held)
		return st.UpdatePod(ctx, held.DeepCopy())
	}
	return fmt.Errorf("binding: pod %s is not in the API server", p.Name)
}

// Compare tells how simulate's answer differs from Karpenter's own:
// nodes by pool (count and instance types) and Pending pods by workload.
// Types are compared by price: where several fitting types cost the same
// (a region Karpenter's tables do not price orders types by vCPUs and
// memory, so c5.xlarge and c5d.xlarge tie), upstream's fake provider
// takes the first its unstable sort leaves, simulate the first by name;
// either is the cheapest. ties counts the nodes that differ only so.
// Each line is one difference; none means they agree.
func Compare(req *simulate.Request, sim *simulate.Response, up *Upstream) (diffs []string, ties int) {
	price := map[string]float64{}
	for _, its := range req.InstanceTypes {
		for _, it := range its {
			for _, o := range it.Offerings {
				if p, ok := price[it.Name]; !ok || o.Price < p {
					price[it.Name] = o.Price
				}
			}
		}
	}
	type tally struct {
		nodes int
		types map[string]int
	}
	count := func(add func(func(pool, it string))) map[string]*tally {
		out := map[string]*tally{}
		add(func(pool, it string) {
			t := out[pool]
			if t == nil {
				t = &tally{types: map[string]int{}}
				out[pool] = t
			}
			t.nodes++
			t.types[it]++
		})
		return out
	}
	mine := count(func(f func(string, string)) {
		for _, n := range sim.Nodes {
			f(n.NodePool, n.InstanceType)
		}
	})
	theirs := count(func(f func(string, string)) {
		for _, n := range up.Nodes {
			f(n.Pool, n.InstanceType)
		}
	})
	var out []string
	for _, pool := range keys.Union(mine, theirs) {
		m, t := cmp.Or(mine[pool], &tally{}), cmp.Or(theirs[pool], &tally{})
		if m.nodes != t.nodes || !maps.Equal(prices(m.types, price), prices(t.types, price)) {
			out = append(out, fmt.Sprintf("pool %s: simulate launches %d node(s) %v, Karpenter %d %v", pool, m.nodes, m.types, t.nodes, t.types))
			continue
		}
		for it, n := range m.types {
			ties += max(0, n-t.types[it])
		}
	}
	// A pod Karpenter cannot place that a kept group runs anyway is
	// Pending for Karpenter; simulate says where it lands (GroupOnly).
	for i, w := range sim.Workloads {
		if up.Grouped[i] {
			continue
		}
		pending := 0
		for _, n := range w.Pending {
			pending += n
		}
		for _, n := range w.GroupOnly {
			pending += n
		}
		if pending != up.Pending[i] {
			out = append(out, fmt.Sprintf("%s %s/%s: simulate leaves %d pod(s) Pending, Karpenter %d", w.Kind, w.Namespace, w.Name, pending, up.Pending[i]))
		}
	}
	return out, ties
}

// prices are the nodes of a tally by their types' prices.
func prices(types map[string]int, price map[string]float64) map[float64]int {
	out := map[float64]int{}
	for it, n := range types {
		out[price[it]] += n
	}
	return out
}

// newCluster is an empty cluster for Karpenter's controllers at clk: an
// API server, its cloud provider (the fake one, offering each pool its
// instance types, all for any other), and the cluster state. No
// ResourceSlice is in a simulated cluster.
func newCluster(opts *options.Options, clk clock.Clock, pools []*karpv1.NodePool, its map[string][]*cloudprovider.InstanceType, all []*cloudprovider.InstanceType) (*cluster, *apiServer, *fake.CloudProvider) {
	opts.IgnoreDRARequests = true
	ctx := options.ToContext(context.Background(), opts)
	api := &apiServer{}
	kube := api.client()
	provider := fake.NewCloudProvider()
	provider.InstanceTypes = all
	provider.InstanceTypesForNodePool = its
	provider.AllowedCreateCalls = 1 << 30
	st := state.NewCluster(clk, kube, provider)
	return &cluster{ctx: ctx, client: kube, state: st, clock: clk, pools: pools, its: its, round: map[*corev1.Pod]int{}}, api, provider
}

// addPools creates the pools as the API server holds them, managed by
// the fake provider's node class, ready; hashed, each with the hash
// Karpenter's NodePool hash controller gives it, which drift compares
// NodeClaims' with (of the pool as rendered, its EC2NodeClass reference
// included).
func (c *cluster) addPools(hashed bool) error {
	for _, np := range c.pools {
		np := np.DeepCopy()
		if hashed {
			np.Annotations = map[string]string{karpv1.NodePoolHashAnnotationKey: np.Hash(), karpv1.NodePoolHashVersionAnnotationKey: karpv1.NodePoolHashVersion}
		}
		np.Spec.Template.Spec.NodeClassRef = &karpv1.NodeClassReference{Group: v1alpha1.Group, Kind: "TestNodeClass", Name: np.Spec.Template.Spec.NodeClassRef.Name}
		np.StatusConditions().SetTrue("Ready")
		if err := c.client.Create(c.ctx, np); err != nil {
			return err
		}
	}
	return nil
}
