package simulate

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/karpgen/karpgen/internal/facts"
	"github.com/karpgen/karpgen/internal/facts/drift"
	"github.com/karpgen/karpgen/internal/facts/instancetypes"
	"github.com/karpgen/karpgen/internal/facts/kubelet"
	"github.com/karpgen/karpgen/internal/model"
	"github.com/karpgen/karpgen/internal/profile"
	"github.com/karpgen/karpgen/internal/simulate/wire"
)

// NewRequest is the request for an environment: nodePools is its
// rendered nodepools.yaml, prices what its offerings cost.
func NewRequest(e *model.Env, nodePools []byte, workloads []Workload, prices Prices) (*Request, error) {
	p := e.Profile
	req := &Request{
		Protocol:        wire.Protocol,
		NodePools:       string(nodePools),
		InstanceTypes:   map[string][]InstanceType{},
		WellKnownLabels: slices.Clone(e.Facts.Labels.AWSKeys),
	}
	for _, name := range slices.Sorted(maps.Keys(p.NodeGroups)) {
		g := p.NodeGroups[name]
		// EKS labels every node of a managed node group with its name,
		// and the kubelet with its OS (the profile's groups are Linux).
		labels := map[string]string{"eks.amazonaws.com/nodegroup": name, "kubernetes.io/os": "linux"}
		maps.Copy(labels, g.Labels)
		ng := NodeGroup{Name: name, Labels: labels}
		for _, t := range g.Taints {
			ng.Taints = append(ng.Taints, Taint(t))
		}
		if g.InstanceType != "" && g.Size != nil {
			alloc, err := groupAllocatable(g.InstanceType)
			if err != nil {
				return nil, fmt.Errorf("node group %s: %w", name, err)
			}
			ng.InstanceType, ng.Size, ng.Allocatable = g.InstanceType, g.Size, alloc
		}
		req.NodeGroups = append(req.NodeGroups, ng)
	}
	for _, w := range workloads {
		if IsVolume(w) {
			req.Volumes = append(req.Volumes, w)
		} else {
			req.Workloads = append(req.Workloads, w)
		}
	}
	zones := facts.ZoneNames(p.Cluster.Region)
	if len(zones) == 0 {
		return nil, fmt.Errorf("region %s: no zones known", p.Cluster.Region)
	}
	for _, class := range slices.Sorted(maps.Keys(p.NodeClasses)) {
		settings, os, err := nodeSettings(p, p.NodeClasses[class])
		if err != nil {
			return nil, fmt.Errorf("node class %s: %w", class, err)
		}
		// maxPods written as an expression (1.15) is the type's own,
		// when the nodeClassCEL gate lets Karpenter read it.
		var maxPods *kubelet.Expr
		if k := p.NodeClasses[class].Kubelet; k != nil && k.MaxPodsExpr != "" && p.Karpenter.AWSFeatureGates["nodeClassCEL"] {
			if maxPods, err = kubelet.Compile(k.MaxPodsExpr); err != nil {
				return nil, fmt.Errorf("node class %s: kubelet maxPods %q: %w", class, k.MaxPodsExpr, err)
			}
		}
		for _, t := range instancetypes.WithCapacity() {
			c, ok := instancetypes.CapacityOf(t.Name)
			if !ok || t.Arch == "" {
				continue
			}
			price, onDemand := prices.OnDemand[t.Name]
			spot := prices.Spot[t.Name]
			if prices.Priced() && !onDemand && len(spot) == 0 {
				continue // not offered in the region
			}
			if !prices.Priced() {
				price, onDemand = proxyPrice(c), true
			}
			s := settings
			if maxPods != nil {
				n, err := maxPods.EvalWith(exprVars(t, c))
				if err != nil {
					return nil, fmt.Errorf("node class %s: kubelet maxPods on %s: %w", class, t.Name, err)
				}
				s.MaxPods = int(max(n, 0))
			}
			node, err := instancetypes.NodeOf(t, c, s)
			if err != nil {
				return nil, fmt.Errorf("node class %s: %w", class, err)
			}
			it := InstanceType{Name: t.Name, Labels: labelsOf(t, c, os), Capacity: quantities(node.Capacity), Overhead: quantities(node.Overhead)}
			for _, z := range zones {
				// As the provider offers them: on demand where the
				// type has a price, spot in the zones it has a spot
				// price in (every zone, at the on-demand price, when
				// spot prices are unknown).
				if onDemand {
					it.Offerings = append(it.Offerings, Offering{Zone: z, CapacityType: "on-demand", Price: price})
				}
				if sp, ok := spot[z]; ok {
					it.Offerings = append(it.Offerings, Offering{Zone: z, CapacityType: "spot", Price: sp})
				} else if prices.Spot == nil {
					it.Offerings = append(it.Offerings, Offering{Zone: z, CapacityType: "spot", Price: price})
				}
			}
			if err := overlay(p, &it); err != nil {
				return nil, err
			}
			req.InstanceTypes[class] = append(req.InstanceTypes[class], it)
		}
	}
	return req, nil
}

// groupAllocatable is what a node of a managed node group of the type
// offers pods: EKS's AL2023 image reserves as the AWS provider computes
// for its own nodes (maxPods by network interfaces, kube-reserved by
// CPU and pods, eviction thresholds), on its default 20 GiB root volume.
func groupAllocatable(name string) (map[string]string, error) {
	t, ok := instancetypes.Lookup(name)
	c, known := instancetypes.CapacityOf(name)
	if !ok || !known {
		return nil, fmt.Errorf("instance type %q is not one Karpenter's tables know", name)
	}
	node, err := instancetypes.NodeOf(t, c, instancetypes.DefaultNodeSettings())
	if err != nil {
		return nil, err
	}
	return quantities(node.Allocatable()), nil
}

// proxyPrice orders the instance types of a region the tables do not
// price: by vCPUs and memory, as EC2's prices roughly do. The report
// shows no price for it.
func proxyPrice(c instancetypes.Capacity) float64 {
	return float64(c.VCPUs)*0.04 + float64(c.MemoryMiB)/1024*0.005 + float64(c.GPU.Count+c.Accelerator.Count)*0.5
}

// labelsOf are an instance type's labels as the AWS provider gives them.
func labelsOf(t instancetypes.Type, c instancetypes.Capacity, os string) map[string]string {
	l := map[string]string{
		"kubernetes.io/arch":                          t.Arch,
		"kubernetes.io/os":                            os,
		"node.kubernetes.io/instance-type":            t.Name,
		"karpenter.k8s.aws/instance-category":         t.Category,
		"karpenter.k8s.aws/instance-family":           t.Family,
		"karpenter.k8s.aws/instance-generation":       strconv.Itoa(t.Generation),
		"karpenter.k8s.aws/instance-size":             t.Size,
		"karpenter.k8s.aws/instance-cpu":              strconv.Itoa(c.VCPUs),
		"karpenter.k8s.aws/instance-memory":           strconv.FormatInt(c.MemoryMiB, 10),
		"karpenter.k8s.aws/instance-hypervisor":       t.Hypervisor,
		"karpenter.k8s.aws/instance-cpu-manufacturer": c.CPUManufacturer,
	}
	if c.NetworkMbps > 0 {
		l["karpenter.k8s.aws/instance-network-bandwidth"] = strconv.Itoa(c.NetworkMbps)
	}
	if c.LocalNVMeGB > 0 {
		l["karpenter.k8s.aws/instance-local-nvme"] = strconv.Itoa(c.LocalNVMeGB)
	}
	if d := c.GPU; d.Count > 0 {
		l["karpenter.k8s.aws/instance-gpu-name"] = d.Name
		l["karpenter.k8s.aws/instance-gpu-manufacturer"] = d.Manufacturer
		l["karpenter.k8s.aws/instance-gpu-count"] = strconv.Itoa(d.Count)
		l["karpenter.k8s.aws/instance-gpu-memory"] = strconv.FormatInt(d.MemoryMiB, 10)
	}
	if d := c.Accelerator; d.Count > 0 {
		l["karpenter.k8s.aws/instance-accelerator-name"] = d.Name
		l["karpenter.k8s.aws/instance-accelerator-manufacturer"] = d.Manufacturer
		l["karpenter.k8s.aws/instance-accelerator-count"] = strconv.Itoa(d.Count)
	}
	for k, v := range l {
		if v == "" {
			delete(l, k)
		}
	}
	return l
}

// ephemeralDevice is the device each AMI family keeps ephemeral storage
// on, and its size when no block device names it.
var ephemeralDevice = map[string]struct {
	device string
	size   int64
}{
	"AL2": {"/dev/xvda", 20 << 30}, "AL2023": {"/dev/xvda", 20 << 30}, "Bottlerocket": {"/dev/xvdb", 20 << 30},
	"Windows2019": {"/dev/sda1", 50 << 30}, "Windows2022": {"/dev/sda1", 50 << 30}, "Windows2025": {"/dev/sda1", 50 << 30},
}

// nodeSettings are what of a node class, its kubelet and the chart's
// settings change the nodes, and the OS of its AMI family.
func nodeSettings(p *profile.Profile, nc profile.NodeClass) (instancetypes.NodeSettings, string, error) {
	s := instancetypes.DefaultNodeSettings()
	family := amiFamily(nc.AMI)
	os := "linux"
	if strings.HasPrefix(family, "Windows") {
		os, s.ENILimited = "windows", false
	}
	// The provider reserves the kubelet's memory by the ENI-limited pods
	// for every family but Bottlerocket and Windows.
	s.ENIMemoryOverhead = family != "Bottlerocket" && !strings.HasPrefix(family, "Windows")
	if v, ok := p.Karpenter.Settings["reservedENIs"]; ok {
		n, err := strconv.Atoi(fmt.Sprint(v))
		if err != nil {
			return s, "", fmt.Errorf("settings.reservedENIs %v is not a count", v)
		}
		s.ReservedENIs = n
	}
	if v, ok := p.Karpenter.Settings["vmMemoryOverheadPercent"]; ok {
		f, err := strconv.ParseFloat(fmt.Sprint(v), 64)
		if err != nil {
			return s, "", fmt.Errorf("settings.vmMemoryOverheadPercent %v is not a fraction", v)
		}
		s.VMMemoryOverheadPercent = f
	}
	dev, ok := ephemeralDevice[family]
	if !ok {
		dev = ephemeralDevice["AL2023"]
	}
	s.RootVolume = dev.size
	for i, bd := range nc.BlockDevices {
		root := bd.RootVolume != nil && *bd.RootVolume || bd.DeviceName == dev.device || family == "Custom" && i == len(nc.BlockDevices)-1
		if !root || bd.VolumeSize == "" {
			continue
		}
		q, err := resource.ParseQuantity(bd.VolumeSize)
		if err != nil {
			return s, "", fmt.Errorf("blockDevices %s volumeSize %q: %w", bd.DeviceName, bd.VolumeSize, err)
		}
		s.RootVolume = q.Value()
	}
	if k := nc.Kubelet; k != nil {
		if k.MaxPods != nil {
			s.MaxPods = *k.MaxPods
		}
		if k.PodsPerCore != nil {
			s.PodsPerCore = *k.PodsPerCore
		}
		s.KubeReserved, s.SystemReserved, s.EvictionHard = k.KubeReserved, k.SystemReserved, k.EvictionHard
	}
	return s, os, nil
}

// amiFamily is the family a class's AMI selection implies, as the node
// class resolves it: amiFamily when set, else the alias's, else Custom.
func amiFamily(a profile.AMI) string {
	if a.Family != "" {
		return a.Family
	}
	if f, ok := drift.AliasFamily(a.Alias); ok {
		return f
	}
	return "Custom"
}

// quantities writes resources as Kubernetes quantities.
func quantities(r instancetypes.Resources) map[string]string {
	out := make(map[string]string, len(r))
	for k, v := range r {
		if k == instancetypes.CPU {
			out[k] = strconv.FormatInt(v, 10) + "m"
		} else {
			out[k] = strconv.FormatInt(v, 10)
		}
	}
	return out
}

// exprVars are what Karpenter gives a kubelet expression of an instance
// type.
func exprVars(t instancetypes.Type, c instancetypes.Capacity) kubelet.Vars {
	enis := int64(0)
	if t.IPv4PerENI > 1 {
		enis = int64((c.ENIPods - 2) / (t.IPv4PerENI - 1))
	}
	return kubelet.Vars{DefaultENIs: enis, IPsPerENI: int64(t.IPv4PerENI), MaxPods: int64(c.ENIPods),
		VCPUs: int64(c.VCPUs), MemoryMiB: c.MemoryMiB, InstanceType: t.Name}
}

// overlay applies the profile's NodeOverlays to an instance type as
// Karpenter does before it schedules: of the overlays whose requirements
// an offering meets, the heaviest (then the first by name) sets its price
// or adjusts it, and each extended resource of an overlay's capacity is
// added as the heaviest overlay naming it says.
func overlay(p *profile.Profile, it *InstanceType) error {
	if len(p.NodeOverlays) == 0 {
		return nil
	}
	names := slices.SortedFunc(maps.Keys(p.NodeOverlays), func(a, b string) int {
		wa, wb := weight(p.NodeOverlays[a]), weight(p.NodeOverlays[b])
		if wa != wb {
			return wb - wa
		}
		return strings.Compare(a, b)
	})
	capacityFrom := map[string]bool{}
	for _, name := range names {
		o := p.NodeOverlays[name]
		if !instancetypes.Matches(o.Requirements, it.Labels) {
			continue
		}
		for _, r := range slices.Sorted(maps.Keys(o.Capacity)) {
			if capacityFrom[r] {
				continue
			}
			capacityFrom[r] = true
			q, err := resource.ParseQuantity(fmt.Sprint(o.Capacity[r]))
			if err != nil {
				return fmt.Errorf("node overlay %s: capacity %s: %w", name, r, err)
			}
			it.Capacity[r] = q.String()
		}
	}
	for i := range it.Offerings {
		off := &it.Offerings[i]
		labels := maps.Clone(it.Labels)
		labels["topology.kubernetes.io/zone"], labels["karpenter.sh/capacity-type"] = off.Zone, off.CapacityType
		for _, name := range names {
			o := p.NodeOverlays[name]
			if (o.Price == "" && o.PriceAdjustment == "") || !instancetypes.Matches(o.Requirements, labels) {
				continue
			}
			price, err := adjusted(off.Price, o)
			if err != nil {
				return fmt.Errorf("node overlay %s: %w", name, err)
			}
			off.Price = price
			break
		}
	}
	return nil
}

func weight(o profile.NodeOverlay) int {
	if o.Weight == nil {
		return 0
	}
	return *o.Weight
}

// adjusted is a price under an overlay: its price, or the price moved by
// its adjustment ("-15%", "+0.05").
func adjusted(price float64, o profile.NodeOverlay) (float64, error) {
	if o.Price != "" {
		v, err := strconv.ParseFloat(o.Price, 64)
		if err != nil {
			return 0, fmt.Errorf("price %q: %w", o.Price, err)
		}
		return v, nil
	}
	a := o.PriceAdjustment
	if pct, ok := strings.CutSuffix(a, "%"); ok {
		v, err := strconv.ParseFloat(pct, 64)
		if err != nil {
			return 0, fmt.Errorf("priceAdjustment %q: %w", a, err)
		}
		return max(price*(1+v/100), 0), nil
	}
	v, err := strconv.ParseFloat(a, 64)
	if err != nil {
		return 0, fmt.Errorf("priceAdjustment %q: %w", a, err)
	}
	return max(price+v, 0), nil
}
