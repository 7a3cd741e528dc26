package simulate_test

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"

	"github.com/karpgen/karpgen/internal/doctor/live"
	"github.com/karpgen/karpgen/internal/simulate/wire"
	"github.com/karpgen/karpgen/simulate/internal/sched"
)

// BenchmarkDisruption5000Pods100Nodes times the disruption view of a
// captured cluster of 100 nodes of the benchmarks' app pool, each of 50
// pods of 20m to 120m: every node a candidate of consolidation, each
// evaluated alone, and the round's command found among them.
func BenchmarkDisruption5000Pods100Nodes(b *testing.B) {
	req := benchRequest(b, "")
	objs := captured(b, 100, 50)
	req.Cluster = &wire.Cluster{Now: objs.Time.Format(time.RFC3339), Nodes: objs.Nodes, NodeClaims: objs.NodeClaims, Pods: objs.Pods,
		Files: wire.ClusterFiles{Nodes: live.FileNodes, NodeClaims: live.FileNodeClaims, Pods: live.FilePods}}
	commands, gone := 0, 0
	for b.Loop() {
		resp, err := sched.Disrupt(req)
		must(b, err)
		commands, gone = len(resp.Commands), 0
		for _, c := range resp.Commands {
			gone += len(c.Nodes)
		}
	}
	b.ReportMetric(float64(commands), "commands")
	b.ReportMetric(float64(gone), "nodes-gone")
}

// captured is a cluster of nodes of the app pool with perNode pods each,
// as kubectl prints them, read 10 minutes after the last pod event.
func captured(b testing.TB, nodes, perNode int) *live.Objects {
	born := metav1.NewTime(time.Date(2026, 12, 1, 8, 0, 0, 0, time.UTC))
	out := &live.Objects{Time: time.Date(2026, 12, 7, 10, 0, 0, 0, time.UTC)}
	add := func(list *[]json.RawMessage, v any) {
		data, err := json.Marshal(v)
		must(b, err)
		*list = append(*list, data)
	}
	for i := range nodes {
		name := fmt.Sprintf("ip-10-1-%d-%d.ap-northeast-2.compute.internal", i/250, i%250)
		zone := []string{"ap-northeast-2a", "ap-northeast-2c"}[i%2]
		providerID := fmt.Sprintf("aws:///%s/i-%017x", zone, i)
		labels := map[string]string{
			karpv1.NodePoolLabelKey: "app", karpv1.CapacityTypeLabelKey: "on-demand", karpv1.NodeInitializedLabelKey: "true", karpv1.NodeRegisteredLabelKey: "true",
			corev1.LabelInstanceTypeStable: "m5.2xlarge", corev1.LabelTopologyZone: zone, corev1.LabelArchStable: "amd64", corev1.LabelOSStable: "linux",
			corev1.LabelHostname: name, "karpenter.k8s.aws/instance-family": "m5", "karpenter.k8s.aws/instance-cpu": "8", "nodegroup": "app",
		}
		alloc := corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("7910m"), corev1.ResourceMemory: resource.MustParse("31081424Ki"), corev1.ResourcePods: resource.MustParse("58")}
		taints := []corev1.Taint{{Key: "nodegroup", Value: "app", Effect: corev1.TaintEffectNoSchedule}}
		add(&out.Nodes, &corev1.Node{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Node"},
			ObjectMeta: metav1.ObjectMeta{Name: name, UID: types.UID(name), Labels: labels, CreationTimestamp: born},
			Spec:       corev1.NodeSpec{ProviderID: providerID, Taints: taints},
			Status: corev1.NodeStatus{Capacity: alloc, Allocatable: alloc,
				Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}}}})
		claim := &karpv1.NodeClaim{TypeMeta: metav1.TypeMeta{APIVersion: "karpenter.sh/v1", Kind: "NodeClaim"},
			ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("app-%05d", i), UID: types.UID(fmt.Sprintf("claim-%d", i)), Labels: labels, CreationTimestamp: born},
			Spec:       karpv1.NodeClaimSpec{NodeClassRef: &karpv1.NodeClassReference{Group: "karpenter.k8s.aws", Kind: "EC2NodeClass", Name: "default"}, Taints: taints},
			Status: karpv1.NodeClaimStatus{ProviderID: providerID, NodeName: name, Capacity: alloc, Allocatable: alloc,
				LastPodEventTime: metav1.NewTime(out.Time.Add(-10 * time.Minute))}}
		for _, t := range []string{karpv1.ConditionTypeLaunched, karpv1.ConditionTypeRegistered, karpv1.ConditionTypeInitialized} {
			claim.StatusConditions().SetTrue(t)
		}
		add(&out.NodeClaims, claim)
		for j := range perNode {
			cpu := []string{"20m", "50m", "100m", "120m"}[(i*perNode+j)%4]
			add(&out.Pods, &corev1.Pod{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
				ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("web-%05d-%02d", i, j), Namespace: "shop", UID: types.UID(fmt.Sprintf("pod-%d-%d", i, j)), Labels: map[string]string{"app": "web"},
					OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "web-7d9f8b6c5", UID: "rs-web", Controller: ptr(true)}}},
				Spec: corev1.PodSpec{NodeName: name, NodeSelector: map[string]string{"nodegroup": "app"},
					Tolerations: []corev1.Toleration{{Key: "nodegroup", Value: "app", Effect: corev1.TaintEffectNoSchedule}},
					Containers:  []corev1.Container{{Name: "web", Image: "web", Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourceMemory: resource.MustParse("64Mi")}}}}},
				Status: corev1.PodStatus{Phase: corev1.PodRunning}})
		}
	}
	return out
}

func ptr[T any](v T) *T { return &v }
