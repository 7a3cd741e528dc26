package generators

import (
	"cmp"
	"maps"
	"slices"
	"strings"

	"github.com/karpgen/karpgen/internal/model"

	"github.com/karpgen/karpgen/internal/profile"
)

// NodeClasses returns the EC2NodeClass objects, sorted by name. A class
// without a role or instance profile of its own uses the node role.
func NodeClasses(e *model.Env) []any {
	p, n := e.Profile, e.Names
	out := make([]any, 0, len(p.NodeClasses))
	for _, name := range slices.Sorted(maps.Keys(p.NodeClasses)) {
		out = append(out, nodeClass(name, p.NodeClasses[name], n))
	}
	return out
}

// nodeClassSpec is an EC2NodeClass's spec as karpgen writes it: the
// CRD's names, an empty field left out.
type nodeClassSpec struct {
	AMIFamily                        string                            `json:"amiFamily,omitempty"`
	AMISelectorTerms                 []any                             `json:"amiSelectorTerms"`
	AssociatePublicIPAddress         *bool                             `json:"associatePublicIPAddress,omitempty"`
	BlockDeviceMappings              []blockDeviceMapping              `json:"blockDeviceMappings,omitempty"`
	CapacityReservationSelectorTerms []profile.CapacityReservationTerm `json:"capacityReservationSelectorTerms,omitempty"`
	ConnectionTracking               map[string]int                    `json:"connectionTracking,omitempty"`
	CPUOptions                       map[string]string                 `json:"cpuOptions,omitempty"`
	DetailedMonitoring               *bool                             `json:"detailedMonitoring,omitempty"`
	EnclaveOptions                   *profile.EnclaveOptions           `json:"enclaveOptions,omitempty"`
	InstanceProfile                  string                            `json:"instanceProfile,omitempty"`
	InstanceStorePolicy              string                            `json:"instanceStorePolicy,omitempty"`
	IPPrefixCount                    *int                              `json:"ipPrefixCount,omitempty"`
	Kubelet                          any                               `json:"kubelet,omitempty"`
	MetadataOptions                  profile.MetadataOptions           `json:"metadataOptions"`
	NetworkInterfaces                []profile.NetworkInterface        `json:"networkInterfaces,omitempty"`
	PlacementGroupSelector           map[string]string                 `json:"placementGroupSelector,omitempty"`
	Role                             string                            `json:"role,omitempty"`
	SecurityGroupSelectorTerms       []profile.SelectorTerm            `json:"securityGroupSelectorTerms"`
	SubnetSelectorTerms              []profile.SelectorTerm            `json:"subnetSelectorTerms"`
	Tags                             map[string]string                 `json:"tags,omitempty"`
	UserData                         string                            `json:"userData,omitempty"`
}

// blockDeviceMapping is one of the spec's block devices.
type blockDeviceMapping struct {
	DeviceName string `json:"deviceName"`
	EBS        ebs    `json:"ebs"`
	RootVolume *bool  `json:"rootVolume,omitempty"`
}

type ebs struct {
	DeleteOnTermination      bool   `json:"deleteOnTermination"`
	Encrypted                bool   `json:"encrypted"`
	IOPS                     *int   `json:"iops,omitempty"`
	KMSKeyID                 string `json:"kmsKeyID,omitempty"`
	SnapshotID               string `json:"snapshotID,omitempty"`
	Throughput               *int   `json:"throughput,omitempty"`
	VolumeInitializationRate *int   `json:"volumeInitializationRate,omitempty"`
	VolumeSize               string `json:"volumeSize,omitempty"`
	VolumeType               string `json:"volumeType"`
}

func nodeClass(name string, nc profile.NodeClass, n model.Names) obj {
	spec := nodeClassSpec{
		AMIFamily:                        nc.AMI.Family,
		AMISelectorTerms:                 amiTerms(nc.AMI),
		AssociatePublicIPAddress:         nc.AssociatePublicIPAddress,
		BlockDeviceMappings:              blockDevices(nc.BlockDevices),
		CapacityReservationSelectorTerms: nc.CapacityReservationSelectorTerms,
		ConnectionTracking:               nc.ConnectionTracking,
		CPUOptions:                       nc.CPUOptions,
		DetailedMonitoring:               nc.DetailedMonitoring,
		EnclaveOptions:                   nc.EnclaveOptions,
		InstanceProfile:                  nc.InstanceProfile,
		InstanceStorePolicy:              nc.InstanceStorePolicy,
		IPPrefixCount:                    nc.IPPrefixCount,
		MetadataOptions:                  nc.MetadataOptions,
		NetworkInterfaces:                nc.NetworkInterfaces,
		PlacementGroupSelector:           nc.PlacementGroupSelector,
		SecurityGroupSelectorTerms:       nc.SecurityGroupSelectorTerms,
		SubnetSelectorTerms:              nc.SubnetSelectorTerms,
		Tags:                             nc.Tags,
		// kustomize (kyaml) strips the final newline of the last block
		// scalar of a document, and userData sorts last: without it here,
		// what Argo CD applies would differ from the committed file.
		UserData: strings.TrimRight(nc.UserData, "\n"),
	}
	if nc.InstanceProfile == "" {
		spec.Role = cmp.Or(nc.Role, n.NodeRole)
	}
	if nc.Kubelet != nil {
		spec.Kubelet = kubelet(*nc.Kubelet)
	}
	return obj{
		"apiVersion": nodeClassVersion,
		"kind":       nodeClassKind,
		"metadata":   obj{"name": name},
		"spec":       plain(spec),
	}
}

func amiTerms(a profile.AMI) []any {
	var out []any
	if a.Alias != "" {
		out = append(out, obj{"alias": a.Alias})
	}
	for _, id := range a.IDs {
		out = append(out, obj{"id": id})
	}
	for _, name := range a.Names {
		out = append(out, obj{"name": name})
	}
	if len(a.Tags) > 0 {
		out = append(out, obj{"tags": a.Tags})
	}
	if a.SSMParameter != "" {
		out = append(out, obj{"ssmParameter": a.SSMParameter})
	}
	return out
}

func blockDevices(bs []profile.BlockDevice) []blockDeviceMapping {
	out := make([]blockDeviceMapping, len(bs))
	for i, b := range bs {
		out[i] = blockDeviceMapping{DeviceName: b.DeviceName, RootVolume: b.RootVolume, EBS: ebs{
			DeleteOnTermination: b.DeleteOnTermination, Encrypted: b.Encrypted, IOPS: b.IOPS, KMSKeyID: b.KMSKeyID,
			SnapshotID: b.SnapshotID, Throughput: b.Throughput, VolumeInitializationRate: b.VolumeInitializationRate,
			VolumeSize: b.VolumeSize, VolumeType: b.VolumeType,
		}}
	}
	return out
}

// kubelet copies the set fields; their JSON names are the CRD's.
func kubelet(k profile.Kubelet) obj {
	o := obj{}
	set := func(key string, ok bool, v any) {
		if ok {
			o[key] = v
		}
	}
	set("clusterDNS", len(k.ClusterDNS) > 0, strs(k.ClusterDNS...))
	set("maxPods", k.MaxPods != nil, deref(k.MaxPods))
	set("podsPerCore", k.PodsPerCore != nil, deref(k.PodsPerCore))
	set("systemReserved", len(k.SystemReserved) > 0, k.SystemReserved)
	set("kubeReserved", len(k.KubeReserved) > 0, k.KubeReserved)
	set("evictionHard", len(k.EvictionHard) > 0, k.EvictionHard)
	set("evictionSoft", len(k.EvictionSoft) > 0, k.EvictionSoft)
	set("evictionSoftGracePeriod", len(k.EvictionSoftGracePeriod) > 0, k.EvictionSoftGracePeriod)
	set("evictionMaxPodGracePeriod", k.EvictionMaxPodGracePeriod != nil, deref(k.EvictionMaxPodGracePeriod))
	set("imageGCHighThresholdPercent", k.ImageGCHighThresholdPercent != nil, deref(k.ImageGCHighThresholdPercent))
	set("imageGCLowThresholdPercent", k.ImageGCLowThresholdPercent != nil, deref(k.ImageGCLowThresholdPercent))
	set("cpuCFSQuota", k.CPUCFSQuota != nil, k.CPUCFSQuota != nil && *k.CPUCFSQuota)
	set("maxPods", k.MaxPodsExpr != "", k.MaxPodsExpr)
	// Any other KubeletConfiguration field (1.15+, held to the upstream
	// type by vet), as the profile wrote it.
	maps.Copy(o, k.Extra)
	return o
}

func deref(p *int) int {
	if p == nil {
		return 0
	}
	return *p
}
