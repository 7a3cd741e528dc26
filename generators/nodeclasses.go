package generators

import (
	"maps"
	"strings"

	"github.com/karpgen/karpgen/internal/model"

	"github.com/karpgen/karpgen/internal/profile"
)

// NodeClasses returns the EC2NodeClass objects, sorted by name. A class
// without a role or instance profile of its own uses the node role.
func NodeClasses(e *model.Env) []any {
	p, n := e.Profile, e.Names
	out := make([]any, 0, len(p.NodeClasses))
	for _, name := range sortedKeys(p.NodeClasses) {
		out = append(out, nodeClass(name, p.NodeClasses[name], n))
	}
	return out
}

func nodeClass(name string, nc profile.NodeClass, n model.Names) obj {
	spec := obj{
		"amiSelectorTerms":           amiTerms(nc.AMI),
		"subnetSelectorTerms":        selectorTerms(nc.SubnetSelectorTerms),
		"securityGroupSelectorTerms": selectorTerms(nc.SecurityGroupSelectorTerms),
		"metadataOptions": obj{
			"httpEndpoint":            nc.MetadataOptions.HTTPEndpoint,
			"httpProtocolIPv6":        nc.MetadataOptions.HTTPProtocolIPv6,
			"httpPutResponseHopLimit": nc.MetadataOptions.HTTPPutResponseHopLimit,
			"httpTokens":              nc.MetadataOptions.HTTPTokens,
		},
	}
	switch {
	case nc.InstanceProfile != "":
		spec["instanceProfile"] = nc.InstanceProfile
	default:
		spec["role"] = n.NodeRole
		if nc.Role != "" {
			spec["role"] = nc.Role
		}
	}
	if nc.AMI.Family != "" {
		spec["amiFamily"] = nc.AMI.Family
	}
	if len(nc.BlockDevices) > 0 {
		spec["blockDeviceMappings"] = blockDevices(nc.BlockDevices)
	}
	if len(nc.Tags) > 0 {
		spec["tags"] = nc.Tags
	}
	if ud := strings.TrimRight(nc.UserData, "\n"); ud != "" {
		// kustomize (kyaml) strips the final newline of the last block
		// scalar of a document, and userData sorts last: without it here,
		// what Argo CD applies would differ from the committed file.
		spec["userData"] = ud
	}
	if nc.DetailedMonitoring != nil {
		spec["detailedMonitoring"] = *nc.DetailedMonitoring
	}
	if nc.AssociatePublicIPAddress != nil {
		spec["associatePublicIPAddress"] = *nc.AssociatePublicIPAddress
	}
	if nc.InstanceStorePolicy != "" {
		spec["instanceStorePolicy"] = nc.InstanceStorePolicy
	}
	if nc.Kubelet != nil {
		spec["kubelet"] = kubelet(*nc.Kubelet)
	}
	if len(nc.CapacityReservationSelectorTerms) > 0 {
		var terms []any
		for _, t := range nc.CapacityReservationSelectorTerms {
			o := obj{}
			if t.ID != "" {
				o["id"] = t.ID
			}
			if t.OwnerID != "" {
				o["ownerID"] = t.OwnerID
			}
			if len(t.Tags) > 0 {
				o["tags"] = t.Tags
			}
			if t.InstanceMatchCriteria != "" {
				o["instanceMatchCriteria"] = t.InstanceMatchCriteria
			}
			terms = append(terms, o)
		}
		spec["capacityReservationSelectorTerms"] = terms
	}
	if nc.IPPrefixCount != nil {
		spec["ipPrefixCount"] = *nc.IPPrefixCount
	}
	if len(nc.NetworkInterfaces) > 0 {
		var nis []any
		for _, ni := range nc.NetworkInterfaces {
			nis = append(nis, obj{"networkCardIndex": ni.NetworkCardIndex, "deviceIndex": ni.DeviceIndex, "interfaceType": ni.InterfaceType})
		}
		spec["networkInterfaces"] = nis
	}
	if len(nc.PlacementGroupSelector) > 0 {
		spec["placementGroupSelector"] = nc.PlacementGroupSelector
	}
	if len(nc.CPUOptions) > 0 {
		spec["cpuOptions"] = nc.CPUOptions
	}
	if nc.EnclaveOptions != nil {
		spec["enclaveOptions"] = obj{"enabled": nc.EnclaveOptions.Enabled}
	}
	if len(nc.ConnectionTracking) > 0 {
		ct := obj{}
		for k, v := range nc.ConnectionTracking {
			ct[k] = v
		}
		spec["connectionTracking"] = ct
	}
	return obj{
		"apiVersion": nodeClassVersion,
		"kind":       nodeClassKind,
		"metadata":   obj{"name": name},
		"spec":       spec,
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

func selectorTerms(ts []profile.SelectorTerm) []any {
	out := make([]any, len(ts))
	for i, t := range ts {
		o := obj{}
		if len(t.Tags) > 0 {
			o["tags"] = t.Tags
		}
		if t.ID != "" {
			o["id"] = t.ID
		}
		if t.Name != "" {
			o["name"] = t.Name
		}
		out[i] = o
	}
	return out
}

func blockDevices(bs []profile.BlockDevice) []any {
	out := make([]any, len(bs))
	for i, b := range bs {
		ebs := obj{"volumeType": b.VolumeType, "encrypted": b.Encrypted, "deleteOnTermination": b.DeleteOnTermination}
		if b.VolumeSize != "" {
			ebs["volumeSize"] = b.VolumeSize
		}
		if b.IOPS != nil {
			ebs["iops"] = *b.IOPS
		}
		if b.Throughput != nil {
			ebs["throughput"] = *b.Throughput
		}
		if b.KMSKeyID != "" {
			ebs["kmsKeyID"] = b.KMSKeyID
		}
		if b.SnapshotID != "" {
			ebs["snapshotID"] = b.SnapshotID
		}
		if b.VolumeInitializationRate != nil {
			ebs["volumeInitializationRate"] = *b.VolumeInitializationRate
		}
		o := obj{"deviceName": b.DeviceName, "ebs": ebs}
		if b.RootVolume != nil {
			o["rootVolume"] = *b.RootVolume
		}
		out[i] = o
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
