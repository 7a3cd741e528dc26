package allocatable

import (
	"context"
	"strings"
	"testing"

	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	awsoptions "github.com/aws/karpenter-provider-aws/pkg/operator/options"
	"github.com/aws/karpenter-provider-aws/pkg/providers/instancetype"
	corev1 "k8s.io/api/core/v1"

	"github.com/karpgen/karpgen/internal/facts/instancetypes"
)

// setting is a way a team configures nodes, as the provider reads it and
// as karpgen's NodeSettings say it.
type setting struct {
	name, family                               string
	maxPods, podsPerCore                       *int32
	kubeReserved, systemReserved, evictionHard map[string]string
	reservedENIs                               int
	vmOverhead                                 float64
	apply                                      func(*instancetypes.NodeSettings)
}

func ptr(n int32) *int32 { return &n }

var settings = []setting{
	{name: "defaults", family: "AL2023"},
	{name: "maxPods 20", family: "AL2023", maxPods: ptr(20), apply: func(s *instancetypes.NodeSettings) { s.MaxPods = 20 }},
	{name: "maxPods 110", family: "AL2023", maxPods: ptr(110), apply: func(s *instancetypes.NodeSettings) { s.MaxPods = 110 }},
	{name: "podsPerCore 4", family: "AL2023", podsPerCore: ptr(4), apply: func(s *instancetypes.NodeSettings) { s.PodsPerCore = 4 }},
	{name: "one reserved ENI", family: "AL2023", reservedENIs: 1, apply: func(s *instancetypes.NodeSettings) { s.ReservedENIs = 1 }},
	{name: "VM overhead 10%", family: "AL2023", vmOverhead: 0.1, apply: func(s *instancetypes.NodeSettings) { s.VMMemoryOverheadPercent = 0.1 }},
	{name: "kubeReserved and systemReserved", family: "AL2023",
		kubeReserved: map[string]string{"cpu": "200m", "memory": "300Mi", "ephemeral-storage": "2Gi"}, systemReserved: map[string]string{"cpu": "100m", "memory": "200Mi"},
		apply: func(s *instancetypes.NodeSettings) {
			s.KubeReserved = map[string]string{"cpu": "200m", "memory": "300Mi", "ephemeral-storage": "2Gi"}
			s.SystemReserved = map[string]string{"cpu": "100m", "memory": "200Mi"}
		}},
	{name: "evictionHard", family: "AL2023", evictionHard: map[string]string{"memory.available": "5%", "nodefs.available": "15%"},
		apply: func(s *instancetypes.NodeSettings) {
			s.EvictionHard = map[string]string{"memory.available": "5%", "nodefs.available": "15%"}
		}},
	{name: "Bottlerocket, maxPods 110", family: "Bottlerocket", maxPods: ptr(110), apply: func(s *instancetypes.NodeSettings) {
		s.MaxPods, s.ENIMemoryOverhead = 110, false
	}},
}

// TestAllocatableWithTheProvidersCode: for every instance type of
// karpgen's tables and each setting, what a node offers pods (CPU,
// memory, pods) is what the provider's own NewInstanceType computes.
func TestAllocatableWithTheProvidersCode(t *testing.T) {
	checked := 0
	for _, st := range settings {
		ctx := awsoptions.ToContext(context.Background(), &awsoptions.Options{VMMemoryOverheadPercent: cmpOr(st.vmOverhead, 0.075), ReservedENIs: st.reservedENIs})
		for _, ty := range instancetypes.WithCapacity() {
			c, ok := instancetypes.CapacityOf(ty.Name)
			if !ok || ty.IPv4PerENI < 2 || c.ENIPods < 2 {
				continue
			}
			it := instancetype.NewInstanceType(ctx, info(ty, c), "us-east-1", []string{"us-east-1a"}, nil, nil, nil, nil,
				st.maxPods, st.podsPerCore, st.kubeReserved, st.systemReserved, st.evictionHard, nil, st.family, nil)
			want := it.Allocatable()
			s := instancetypes.DefaultNodeSettings()
			if st.apply != nil {
				st.apply(&s)
			}
			node, err := instancetypes.NodeOf(ty, c, s)
			if err != nil {
				t.Fatalf("%s %s: %v", st.name, ty.Name, err)
			}
			got := node.Allocatable()
			for _, r := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory, corev1.ResourcePods} {
				q := want[r]
				w := q.Value()
				if r == corev1.ResourceCPU {
					w = q.MilliValue()
				}
				// A node whose reservations exceed it offers nothing: the
				// provider's sum goes below zero, karpgen's stops at it.
				w = max(w, 0)
				if got[string(r)] != w {
					t.Errorf("%s, %s: %s %d, the provider's %d", st.name, ty.Name, r, got[string(r)], w)
				}
			}
			checked++
		}
	}
	if checked < 5000 {
		t.Errorf("checked %d instance types and settings", checked)
	}
	t.Logf("%d instance types × settings agree with the provider's NewInstanceType", checked)
}

// info is an instance type as EC2's DescribeInstanceTypes gives it, from
// karpgen's tables: what the provider sizes a node by.
func info(ty instancetypes.Type, c instancetypes.Capacity) ec2types.InstanceTypeInfo {
	arch := ec2types.ArchitectureTypeX8664
	if ty.Arch == "arm64" {
		arch = ec2types.ArchitectureTypeArm64
	}
	enis := int32((c.ENIPods - 2) / (ty.IPv4PerENI - 1))
	vcpus, mem, ipv4 := int32(c.VCPUs), c.MemoryMiB, int32(ty.IPv4PerENI)
	zero := int32(0)
	return ec2types.InstanceTypeInfo{
		InstanceType:  ec2types.InstanceType(ty.Name),
		VCpuInfo:      &ec2types.VCpuInfo{DefaultVCpus: &vcpus},
		MemoryInfo:    &ec2types.MemoryInfo{SizeInMiB: &mem},
		ProcessorInfo: &ec2types.ProcessorInfo{SupportedArchitectures: []ec2types.ArchitectureType{arch}},
		Hypervisor:    ec2types.InstanceTypeHypervisor(strings.ToLower(ty.Hypervisor)),
		NetworkInfo: &ec2types.NetworkInfo{
			MaximumNetworkInterfaces:  &enis,
			Ipv4AddressesPerInterface: &ipv4,
			DefaultNetworkCardIndex:   &zero,
			NetworkCards:              []ec2types.NetworkCardInfo{{NetworkCardIndex: &zero, MaximumNetworkInterfaces: &enis}},
		},
	}
}

func cmpOr(v, or float64) float64 {
	if v == 0 {
		return or
	}
	return v
}
