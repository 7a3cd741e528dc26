package instancetypes

import (
	_ "embed"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// Capacity is what one instance type has, as EC2 describes it: the
// labels Karpenter reads from DescribeInstanceTypes and its extended
// resources (data/capacity.tsv, from the provider's instance types
// reference).
type Capacity struct {
	VCPUs     int
	MemoryMiB int64
	// GPU and Accelerator (Inferentia, Trainium) are the devices it has;
	// Count is 0 without.
	GPU, Accelerator Device
	// LocalNVMeGB is its instance store, 0 without.
	LocalNVMeGB int
	// CPUManufacturer is "intel", "amd" or "aws".
	CPUManufacturer string
	// NetworkMbps is its network bandwidth.
	NetworkMbps int
	// ENIPods are the pods the VPC CNI gives addresses to on the
	// default network card, with no interface reserved.
	ENIPods int
	// Extended are the extended resources a node of it offers
	// (nvidia.com/gpu, aws.amazon.com/neuron, vpc.amazonaws.com/efa,
	// vpc.amazonaws.com/pod-eni, ...), by name.
	Extended map[string]int64
}

// Device is a kind of GPU or accelerator and how many an instance has.
type Device struct {
	Name, Manufacturer string
	Count              int
	MemoryMiB          int64
}

//go:embed data/capacity.tsv
var capacityTSV string

var capacities = sync.OnceValue(func() map[string]Capacity {
	out := make(map[string]Capacity, strings.Count(capacityTSV, "\n"))
	var f [15]string
	for line := range strings.Lines(capacityTSV) {
		if strings.HasPrefix(line, "#") || !fields(strings.TrimSuffix(line, "\n"), f[:]) {
			continue
		}
		c := Capacity{
			VCPUs:           atoi(f[1]),
			MemoryMiB:       int64(atoi(f[2])),
			GPU:             Device{Name: f[3], Manufacturer: f[4], Count: atoi(f[5]), MemoryMiB: int64(atoi(f[6]))},
			Accelerator:     Device{Name: f[7], Manufacturer: f[8], Count: atoi(f[9])},
			LocalNVMeGB:     atoi(f[10]),
			CPUManufacturer: f[11],
			NetworkMbps:     atoi(f[12]),
			ENIPods:         atoi(f[13]),
			Extended:        map[string]int64{},
		}
		for kv := range strings.SplitSeq(f[14], ",") {
			if k, v, ok := strings.Cut(kv, "="); ok {
				c.Extended[k] = int64(atoi(v))
			}
		}
		out[f[0]] = c
	}
	return out
})

// CapacityOf is what an instance type has, and whether the table knows
// it.
func CapacityOf(name string) (Capacity, bool) {
	c, ok := capacities()[name]
	return c, ok
}

func atoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}

// WithCapacity are every instance type whose capacity the table knows:
// those of All, and those the VPC limits table lacks (newer types the
// provider's reference lists), named as All names them, with no network
// interfaces known (a kubelet expression of default_enis or ips_per_eni
// sees 0 for them).
var WithCapacity = sync.OnceValue(func() []Type {
	out := slices.Clone(All())
	known := map[string]bool{}
	for _, t := range out {
		known[t.Name] = true
	}
	for _, name := range slices.Sorted(maps.Keys(capacities())) {
		if known[name] {
			continue
		}
		t := Type{Name: name, Hypervisor: "nitro"}
		t.Family, t.Size, _ = strings.Cut(name, ".")
		t.Category, t.Generation, _ = scheme(name)
		t.Arch = archOf(t.Family)
		out = append(out, t)
	}
	return out
})
