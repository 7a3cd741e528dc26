package sched

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/kubernetes/scheme"
	clienttesting "k8s.io/client-go/testing"
	"sigs.k8s.io/controller-runtime/pkg/client"
	fakeclient "sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"
)

// apiServer is the simulated cluster's API server: controller-runtime's
// fake client for nodes and volumes, and the bound pods in memory. A
// cluster of 10,000 pods lists its pods at every node and every round;
// the fake client would decode every pod from JSON at each list.
type apiServer struct {
	pods []*corev1.Pod
	// onNode are the pods by the node they are bound to.
	onNode map[string][]*corev1.Pod
}

// client is the API server as a controller-runtime client: its objects in
// a plain object tracker (the field-managed one builds a REST mapper at
// every create), pods from memory, and cluster-scoped objects got as the
// API server gets them.
func (a *apiServer) client() client.Client {
	return fakeclient.NewClientBuilder().
		WithObjectTracker(clienttesting.NewObjectTracker(scheme.Scheme, scheme.Codecs.UniversalDecoder())).
		WithInterceptorFuncs(interceptor.Funcs{Get: a.get, List: a.list, Create: a.create}).
		// A NodeClaim's status is written apart from it, as the API
		// server's subresource has it: Karpenter patches conditions so.
		WithStatusSubresource(&karpv1.NodeClaim{}).
		WithIndex(&corev1.Node{}, "spec.providerID", func(o client.Object) []string { return []string{o.(*corev1.Node).Spec.ProviderID} }).
		Build()
}

// create keeps a pod in memory and gives anything else to the tracker.
func (a *apiServer) create(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.CreateOption) error {
	if p, ok := obj.(*corev1.Pod); ok {
		p = p.DeepCopy()
		a.pods = append(a.pods, p)
		if a.onNode == nil {
			a.onNode = map[string][]*corev1.Pod{}
		}
		a.onNode[p.Spec.NodeName] = append(a.onNode[p.Spec.NodeName], p)
		return nil
	}
	return c.Create(ctx, obj, opts...)
}

// list lists the pods from memory, by namespace, labels and node name
// as the API server selects them, and anything else from the tracker.
func (a *apiServer) list(ctx context.Context, c client.WithWatch, list client.ObjectList, opts ...client.ListOption) error {
	l, ok := list.(*corev1.PodList)
	if !ok {
		return c.List(ctx, list, opts...)
	}
	o := (&client.ListOptions{}).ApplyOptions(opts)
	l.Items = nil
	pods := a.pods
	// Cluster state asks for a node's pods at every node.
	if o.FieldSelector != nil {
		if node, ok := o.FieldSelector.RequiresExactMatch("spec.nodeName"); ok {
			pods = a.onNode[node]
		}
	}
	for _, p := range pods {
		if o.Namespace != "" && p.Namespace != o.Namespace {
			continue
		}
		if o.LabelSelector != nil && !o.LabelSelector.Matches(labels.Set(p.Labels)) {
			continue
		}
		if o.FieldSelector != nil && !o.FieldSelector.Matches(podFields(p)) {
			continue
		}
		l.Items = append(l.Items, *p.DeepCopy())
	}
	return nil
}

// podFields are the fields of a pod a selector may name.
func podFields(p *corev1.Pod) fields.Set {
	return fields.Set{"spec.nodeName": p.Spec.NodeName, "metadata.name": p.Name, "metadata.namespace": p.Namespace}
}

// get gets an object as the API server does: a pod from memory, and a
// cluster-scoped object whatever namespace the key gives (upstream asks
// for a PersistentVolume in its pod's namespace), where the fake client
// would look for it there.
func (a *apiServer) get(ctx context.Context, c client.WithWatch, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
	switch o := obj.(type) {
	case *corev1.Pod:
		for _, p := range a.pods {
			if p.Namespace == key.Namespace && p.Name == key.Name {
				p.DeepCopyInto(o)
				return nil
			}
		}
		return apierrors.NewNotFound(corev1.Resource("pods"), key.Name)
	case *corev1.PersistentVolume, *corev1.Node, *storagev1.StorageClass, *storagev1.CSINode:
		key.Namespace = ""
	}
	return c.Get(ctx, key, obj, opts...)
}
