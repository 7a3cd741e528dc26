package instancetypes

import (
	"fmt"
	"maps"
	"math"
	"strings"

	"k8s.io/apimachinery/pkg/api/resource"
)

// Resource names, as Kubernetes and the AWS provider name them.
const (
	CPU              = "cpu"
	Memory           = "memory"
	EphemeralStorage = "ephemeral-storage"
	Pods             = "pods"
)

// Resources are amounts by resource name: cpu in millicores, memory and
// ephemeral-storage in bytes, every other resource in units.
type Resources map[string]int64

// NodeSettings are what of a node class and its kubelet settings change
// what a node of an instance type offers pods, with the AWS provider's
// defaults where the profile says nothing (DefaultNodeSettings).
type NodeSettings struct {
	// MaxPods is the kubelet's maxPods; 0 leaves it to the AMI family.
	MaxPods int
	// PodsPerCore caps the pods at this many per vCPU; 0 for no cap.
	PodsPerCore int
	// ENILimited: the AMI family sizes maxPods by the VPC CNI's
	// addresses (every family but Windows); otherwise 110.
	ENILimited bool
	// ReservedENIs are network interfaces the VPC CNI leaves alone
	// (the chart's settings.reservedENIs).
	ReservedENIs int
	// ENIMemoryOverhead: the kubelet's reserved memory follows the pods
	// the VPC CNI could address (no interface reserved), whatever maxPods
	// says, as the provider computes it for the Amazon Linux families;
	// otherwise it follows the node's pod capacity (Bottlerocket,
	// Windows).
	ENIMemoryOverhead bool
	// VMMemoryOverheadPercent is the memory the hypervisor keeps, as a
	// fraction (the chart's settings.vmMemoryOverheadPercent, 0.075).
	VMMemoryOverheadPercent float64
	// RootVolume is the size of the volume ephemeral storage lives on,
	// in bytes (the AMI family's root volume unless a block device says).
	RootVolume int64
	// KubeReserved, SystemReserved and EvictionHard are the kubelet's,
	// by resource name (or eviction signal), as quantities or (eviction)
	// percentages.
	KubeReserved, SystemReserved, EvictionHard map[string]string
}

// DefaultNodeSettings are the AWS provider's for an AL2023 node class
// with no block device mappings and no kubelet settings.
func DefaultNodeSettings() NodeSettings {
	return NodeSettings{ENILimited: true, ENIMemoryOverhead: true, VMMemoryOverheadPercent: 0.075, RootVolume: 20 << 30}
}

// Node is what a node of an instance type has, and what the kubelet and
// the system keep of it, as the AWS provider computes both
// (pkg/providers/instancetype/types.go): the scheduler places pods on
// Capacity minus Overhead.
type Node struct {
	Capacity, Overhead Resources
}

// Allocatable is what the node offers pods.
func (n Node) Allocatable() Resources {
	out := maps.Clone(n.Capacity)
	for k, v := range n.Overhead {
		out[k] = max(out[k]-v, 0)
	}
	return out
}

// NodeOf computes the node of an instance type under the settings. An
// error names a reservation or threshold that is not a quantity.
func NodeOf(t Type, c Capacity, s NodeSettings) (Node, error) {
	memMiB := c.MemoryMiB
	if t.Arch == "arm64" {
		memMiB -= 64 // Graviton keeps 64 MiB for its contiguous memory allocator
	}
	memMiB -= int64(math.Ceil(float64(memMiB) * s.VMMemoryOverheadPercent))
	capacity := Resources{
		CPU:              int64(c.VCPUs) * 1000,
		Memory:           memMiB << 20,
		EphemeralStorage: s.RootVolume,
		Pods:             int64(pods(t, c, s)),
	}
	maps.Copy(capacity, c.Extended)

	reservedFor := capacity[Pods]
	if s.ENIMemoryOverhead {
		reservedFor = int64(c.ENIPods)
	}
	overhead := Resources{
		Memory:           (11*reservedFor + 255) << 20,
		EphemeralStorage: 1 << 30,
		CPU:              kubeReservedCPU(capacity[CPU]),
	}
	if err := add(overhead, s.KubeReserved, true); err != nil {
		return Node{}, fmt.Errorf("kubeReserved: %w", err)
	}
	if err := add(overhead, s.SystemReserved, false); err != nil {
		return Node{}, fmt.Errorf("systemReserved: %w", err)
	}
	eviction := Resources{Memory: 100 << 20, EphemeralStorage: int64(math.Ceil(float64(s.RootVolume) / 100 * 10))}
	for signal, res := range map[string]string{"memory.available": Memory, "nodefs.available": EphemeralStorage} {
		v, ok := s.EvictionHard[signal]
		if !ok {
			continue
		}
		q, err := signalValue(capacity[res], v)
		if err != nil {
			return Node{}, fmt.Errorf("evictionHard %s: %w", signal, err)
		}
		eviction[res] = q
	}
	for k, v := range eviction {
		overhead[k] += v
	}
	return Node{Capacity: capacity, Overhead: overhead}, nil
}

// pods is the node's pod capacity: the kubelet's maxPods, else the VPC
// CNI's addresses on the default network card (minus the reserved
// interfaces), else 110; capped per core when asked.
func pods(t Type, c Capacity, s NodeSettings) int {
	var n int
	switch {
	case s.MaxPods > 0:
		n = s.MaxPods
	case s.ENILimited:
		n = c.ENIPods
		if s.ReservedENIs > 0 && t.IPv4PerENI > 1 {
			enis := (c.ENIPods - 2) / (t.IPv4PerENI - 1)
			if usable := enis - s.ReservedENIs; usable > 0 {
				n = usable*(t.IPv4PerENI-1) + 2
			} else {
				n = 0
			}
		}
	default:
		n = 110
	}
	if s.PodsPerCore > 0 {
		n = min(n, s.PodsPerCore*c.VCPUs)
	}
	return n
}

// kubeReservedCPU is the CPU the kubelet keeps: 6% of the first core, 1%
// of the second, 0.5% of the next two and 0.25% of every other.
func kubeReservedCPU(milli int64) int64 {
	var out int64
	for _, r := range []struct {
		start, end int64
		percent    float64
	}{{0, 1000, 0.06}, {1000, 2000, 0.01}, {2000, 4000, 0.005}, {4000, 1 << 31, 0.0025}} {
		if milli < r.start {
			continue
		}
		span := r.end - r.start
		if milli < r.end {
			span = milli - r.start
		}
		out += int64(float64(span) * r.percent)
	}
	return out
}

// add sets (replace) or adds the reservations to the overhead: the
// kubelet's kubeReserved replaces the computed values it names.
func add(overhead Resources, reserved map[string]string, replace bool) error {
	for k, v := range reserved {
		q, err := resource.ParseQuantity(v)
		if err != nil {
			return fmt.Errorf("%s %q: %w", k, v, err)
		}
		n := q.Value()
		if k == CPU {
			n = q.MilliValue()
		}
		if replace {
			overhead[k] = n
		} else {
			overhead[k] += n
		}
	}
	return nil
}

// signalValue is an eviction threshold: a percentage of the capacity, or
// a quantity.
func signalValue(capacity int64, v string) (int64, error) {
	if p, ok := strings.CutSuffix(v, "%"); ok {
		var f float64
		if _, err := fmt.Sscan(p, &f); err != nil {
			return 0, fmt.Errorf("%q is not a percentage", v)
		}
		return int64(math.Ceil(float64(capacity) / 100 * f)), nil
	}
	q, err := resource.ParseQuantity(v)
	if err != nil {
		return 0, fmt.Errorf("%q: %w", v, err)
	}
	return q.Value(), nil
}
