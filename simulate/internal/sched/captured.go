package sched

import (
	"encoding/json"
	"fmt"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"

	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"
	"sigs.k8s.io/karpenter/pkg/test/v1alpha1"

	simulate "github.com/karpgen/karpgen/internal/simulate/wire"
)

// captured is a captured cluster as the API server would hold it.
type captured struct {
	now        time.Time
	nodes      []*corev1.Node
	claims     []*karpv1.NodeClaim
	pods       []*corev1.Pod
	pdbs       []*policyv1.PodDisruptionBudget
	daemonSets []*appsv1.DaemonSet
}

// decodeCluster reads the capture's objects, each of the kind its list
// holds. An object that is not one names its file and index.
func decodeCluster(c *simulate.Cluster) (*captured, error) {
	now, err := time.Parse(time.RFC3339, c.Now)
	if err != nil {
		return nil, fmt.Errorf("the time to decide at, %q: not RFC 3339", c.Now)
	}
	out := &captured{now: now}
	if out.nodes, err = decodeAll[corev1.Node](c.Files.Nodes, "Node", c.Nodes); err != nil {
		return nil, err
	}
	if out.claims, err = decodeAll[karpv1.NodeClaim](c.Files.NodeClaims, "NodeClaim", c.NodeClaims); err != nil {
		return nil, err
	}
	if out.pods, err = decodeAll[corev1.Pod](c.Files.Pods, "Pod", c.Pods); err != nil {
		return nil, err
	}
	if out.pdbs, err = decodeAll[policyv1.PodDisruptionBudget](c.Files.PDBs, "PodDisruptionBudget", c.PDBs); err != nil {
		return nil, err
	}
	if out.daemonSets, err = decodeAll[appsv1.DaemonSet](c.Files.DaemonSets, "DaemonSet", c.DaemonSets); err != nil {
		return nil, err
	}
	return out, nil
}

// decodeAll decodes each item as a T of kind; an item of another kind
// (the workloads' file lists Deployments beside DaemonSets) is skipped.
func decodeAll[T any](file, kind string, items []json.RawMessage) ([]*T, error) {
	var out []*T
	for i, raw := range items {
		var head struct {
			Kind string `json:"kind"`
		}
		if err := json.Unmarshal(raw, &head); err != nil {
			return nil, fmt.Errorf("%s: items[%d]: %w", file, i, err)
		}
		if head.Kind != kind {
			continue
		}
		v := new(T)
		if err := json.Unmarshal(raw, v); err != nil {
			return nil, fmt.Errorf("%s: items[%d] (%s): %w", file, i, kind, err)
		}
		out = append(out, v)
	}
	return out, nil
}

// load puts the captured objects in the API server and in Karpenter's
// cluster state, as its informers would: the NodeClaims on the fake
// provider's node class (the pools are), the pods Karpenter's state
// tracks (bound and not finished) and every pending one, which
// consolidation keeps room for.
func (c *cluster) load(api *apiServer, cl *captured) error {
	for _, ds := range cl.daemonSets {
		if err := c.client.Create(c.ctx, ds); err != nil {
			return fmt.Errorf("DaemonSet %s/%s: %w", ds.Namespace, ds.Name, err)
		}
	}
	for _, p := range cl.pdbs {
		if err := c.client.Create(c.ctx, p); err != nil {
			return fmt.Errorf("PodDisruptionBudget %s/%s: %w", p.Namespace, p.Name, err)
		}
	}
	for _, n := range cl.nodes {
		n.ResourceVersion = ""
		if err := c.client.Create(c.ctx, n); err != nil {
			return fmt.Errorf("Node %s: %w", n.Name, err)
		}
	}
	for _, nc := range cl.claims {
		nc.ResourceVersion = ""
		// The fake provider manages the claims of its own node class;
		// one without a reference is no claim of Karpenter's.
		if nc.Spec.NodeClassRef != nil {
			nc.Spec.NodeClassRef = &karpv1.NodeClassReference{Group: v1alpha1.Group, Kind: "TestNodeClass", Name: nc.Spec.NodeClassRef.Name}
		}
		status := nc.Status
		if err := c.client.Create(c.ctx, nc); err != nil {
			return fmt.Errorf("NodeClaim %s: %w", nc.Name, err)
		}
		nc.Status = status
		if err := c.client.Status().Update(c.ctx, nc); err != nil {
			return fmt.Errorf("NodeClaim %s: %w", nc.Name, err)
		}
	}
	for _, p := range cl.pods {
		if p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed {
			continue
		}
		if err := api.create(c.ctx, nil, p); err != nil {
			return err
		}
	}
	return nil
}

// track gives Karpenter's cluster state what its informers would: every
// NodeClaim as the API server now holds it, every node, and the pods
// bound to them.
func (c *cluster) track(api *apiServer) error {
	claims := &karpv1.NodeClaimList{}
	if err := c.client.List(c.ctx, claims); err != nil {
		return err
	}
	for i := range claims.Items {
		// Karpenter's cluster state is not synced while a NodeClaim has
		// no instance, and the disruption controller waits for it.
		if nc := &claims.Items[i]; nc.Status.ProviderID == "" {
			return fmt.Errorf("NodeClaim %s was launching when the capture was taken (it has no providerID): Karpenter disrupts nothing until it launches; capture again once it has", nc.Name)
		}
		c.state.UpdateNodeClaim(&claims.Items[i])
	}
	nodes := &corev1.NodeList{}
	if err := c.client.List(c.ctx, nodes); err != nil {
		return err
	}
	for i := range nodes.Items {
		if err := c.state.UpdateNode(c.ctx, &nodes.Items[i]); err != nil {
			return err
		}
	}
	for _, p := range api.pods {
		if p.Spec.NodeName == "" {
			continue
		}
		if err := c.state.UpdatePod(c.ctx, p.DeepCopy()); err != nil {
			return err
		}
	}
	if !c.state.Synced(c.ctx) {
		return fmt.Errorf("Karpenter's cluster state does not hold every node and NodeClaim of the capture")
	}
	return nil
}
