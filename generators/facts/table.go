package facts

// Label keys the NodePool CRD adds to its karpenter.k8s.aws allow-list.
var (
	awsKeys11  = append(clone(awsKeys10), "karpenter.k8s.aws/ec2nodeclass", "karpenter.k8s.aws/instance-cpu-sustained-clock-speed-mhz")
	awsKeys13  = append(clone(awsKeys11), "karpenter.k8s.aws/capacity-reservation-id")
	awsKeys16  = append(clone(awsKeys13), "karpenter.k8s.aws/capacity-reservation-type")
	awsKeys17  = append(clone(awsKeys16), "karpenter.k8s.aws/instance-capability-flex")
	awsKeys19  = append(clone(awsKeys17), "karpenter.k8s.aws/instance-tenancy")
	awsKeys110 = append(clone(awsKeys19), "karpenter.k8s.aws/capacity-reservation-interruptible")
	awsKeys111 = append(clone(awsKeys110), "karpenter.k8s.aws/placement-group-id", "karpenter.k8s.aws/placement-group-partition")
)

// Minors is the table: one row per supported Karpenter minor, oldest first.
var Minors = []Minor{
	{
		Minor: "1.0", Reference: "v1.0.14",
		CRDs:         crds10,
		Kubernetes:   [2]string{"1.25", "1.31"},
		FeatureGates: gates("spotToSpotConsolidation"),
		IAM: IAM{
			InstanceAccessResources: instanceAccess10, TaggedCreateResources: taggedCreate10,
			RegionalReadActions: withRead("ec2:DescribeAvailabilityZones"),
			// Erratum: upstream's 1.0 lists ec2.amazonaws.com only.
			PassedToServiceList: true,
		},
		NodeRolePolicies: ecrReadOnly, InterruptionRules: rulesBase,
		Labels:      Labels{AWSKeys: awsKeys10, RestrictKubernetesDomains: true},
		AMIFamilies: amiFamilies10, ConsolidationPolicies: policies10, RequirementOperators: operators10, CapacityTypes: capacity10,
		Errata: []Erratum{errPassRoleChina},
	},
	{
		Minor: "1.1", Reference: "v1.1.10",
		CRDs:         crds10,
		Kubernetes:   [2]string{"1.25", "1.31"},
		FeatureGates: gates("spotToSpotConsolidation", "nodeRepair"),
		IAM: IAM{
			InstanceAccessResources: instanceAccess10, TaggedCreateResources: taggedCreate10,
			RegionalReadActions: withRead(), PassedToServiceList: true,
		},
		NodeRolePolicies: ecrReadOnly, InterruptionRules: rulesBase,
		Labels:      Labels{AWSKeys: awsKeys11, RestrictKubernetesDomains: true},
		AMIFamilies: amiFamilies10, ConsolidationPolicies: policies10, RequirementOperators: operators10, CapacityTypes: capacity10,
	},
	{
		Minor: "1.2", Reference: "v1.2.8",
		CRDs:         crds10,
		Kubernetes:   [2]string{"1.25", "1.32"},
		FeatureGates: gates("spotToSpotConsolidation", "nodeRepair"),
		IAM: IAM{
			InstanceAccessResources: instanceAccess10, TaggedCreateResources: taggedCreate10,
			RegionalReadActions: withRead(), PassedToServiceList: true,
		},
		NodeRolePolicies: ecrReadOnly, InterruptionRules: rulesBase,
		Labels:      Labels{AWSKeys: awsKeys11, RestrictKubernetesDomains: true},
		AMIFamilies: amiFamilies10, ConsolidationPolicies: policies10, RequirementOperators: operators10, CapacityTypes: capacity10,
	},
	{
		Minor: "1.3", Reference: "v1.3.8",
		CRDs:         crds10,
		Kubernetes:   [2]string{"1.25", "1.32"},
		FeatureGates: gates("nodeRepair", "reservedCapacity", "spotToSpotConsolidation"),
		IAM: IAM{
			InstanceAccessResources: instanceAccess13, TaggedCreateResources: taggedCreate13,
			RegionalReadActions: withRead("ec2:DescribeCapacityReservations"), PassedToServiceList: true,
		},
		NodeRolePolicies: ecrReadOnly, InterruptionRules: rulesBase,
		Labels:      Labels{AWSKeys: awsKeys13, RestrictKubernetesDomains: true},
		AMIFamilies: amiFamilies10, ConsolidationPolicies: policies10, RequirementOperators: operators10, CapacityTypes: capacity13,
	},
	{
		Minor: "1.4", Reference: "v1.4.4",
		CRDs:         crds10,
		Kubernetes:   [2]string{"1.25", "1.32"},
		FeatureGates: gates("nodeRepair", "reservedCapacity", "spotToSpotConsolidation"),
		IAM: IAM{
			InstanceAccessResources: instanceAccess13, TaggedCreateResources: taggedCreate13,
			RegionalReadActions: withRead("ec2:DescribeCapacityReservations"), PassedToServiceList: true,
		},
		NodeRolePolicies: ecrPullOnly, InterruptionRules: rulesBase,
		Labels:      Labels{AWSKeys: awsKeys13, RestrictKubernetesDomains: true},
		AMIFamilies: amiFamilies10, ConsolidationPolicies: policies10, RequirementOperators: operators10, CapacityTypes: capacity13,
	},
	{
		Minor: "1.5", Reference: "v1.5.8",
		CRDs:         crds10,
		Kubernetes:   [2]string{"1.26", "1.33"},
		FeatureGates: gates("nodeRepair", "reservedCapacity", "spotToSpotConsolidation"),
		IAM: IAM{
			InstanceAccessResources: instanceAccess13, TaggedCreateResources: taggedCreate13,
			RegionalReadActions: withRead("ec2:DescribeCapacityReservations"), PassedToServiceList: true,
		},
		NodeRolePolicies: ecrPullOnly, InterruptionRules: rulesBase,
		Labels:      Labels{AWSKeys: awsKeys13, RestrictKubernetesDomains: true},
		AMIFamilies: amiFamilies10, ConsolidationPolicies: policies10, RequirementOperators: operators10, CapacityTypes: capacity13,
	},
	{
		Minor: "1.6", Reference: "v1.6.8",
		CRDs:         crds10,
		Kubernetes:   [2]string{"1.26", "1.34"},
		FeatureGates: gates("nodeRepair", "reservedCapacity=true", "spotToSpotConsolidation"),
		IAM: IAM{
			InstanceAccessResources: instanceAccess13, TaggedCreateResources: taggedCreate13,
			RegionalReadActions: withRead("ec2:DescribeCapacityReservations"), PassedToServiceList: true,
		},
		NodeRolePolicies: ecrPullOnly, InterruptionRules: rulesBase,
		Labels:      Labels{AWSKeys: awsKeys16, RestrictKubernetesDomains: true},
		AMIFamilies: amiFamilies10, ConsolidationPolicies: policies10, RequirementOperators: operators10, CapacityTypes: capacity13,
	},
	{
		Minor: "1.7", Reference: "v1.7.6",
		CRDs:         crds17,
		Kubernetes:   [2]string{"1.26", "1.34"},
		FeatureGates: gates("nodeRepair", "nodeOverlay", "reservedCapacity=true", "spotToSpotConsolidation"),
		IAM: IAM{
			InstanceAccessResources: instanceAccess13, TaggedCreateResources: taggedCreate13,
			RegionalReadActions: withRead("ec2:DescribeCapacityReservations"), PassedToServiceList: true,
			ListInstanceProfiles: true,
		},
		NodeRolePolicies: ecrPullOnly, InterruptionRules: rulesBase,
		Labels:      Labels{AWSKeys: awsKeys17, RestrictKubernetesDomains: true},
		AMIFamilies: amiFamilies10, ConsolidationPolicies: policies10, RequirementOperators: operators10, CapacityTypes: capacity13,
	},
	{
		Minor: "1.8", Reference: "v1.8.8",
		CRDs:         crds17,
		Kubernetes:   [2]string{"1.26", "1.34"},
		FeatureGates: gates("nodeRepair", "nodeOverlay", "reservedCapacity=true", "spotToSpotConsolidation", "staticCapacity"),
		IAM: IAM{
			InstanceAccessResources: instanceAccess13, TaggedCreateResources: taggedCreate13,
			RegionalReadActions: withRead("ec2:DescribeCapacityReservations"), PassedToServiceList: true,
			ListInstanceProfiles: true,
		},
		NodeRolePolicies: ecrPullOnly, InterruptionRules: rulesBase,
		Labels:      Labels{AWSKeys: awsKeys17, RestrictKubernetesDomains: true},
		AMIFamilies: amiFamilies10, ConsolidationPolicies: policies10, RequirementOperators: operators10, CapacityTypes: capacity13,
		BadPatches: []BadPatch{{Patch: 4, FixedIn: 5, Issue: "https://github.com/kubernetes-sigs/karpenter/issues/2785",
			Summary: "its core (kubernetes-sigs/karpenter 1.8.1) cannot schedule pods with some topologySpreadConstraints and uses several times the memory (aws/karpenter-provider-aws#8841)"}},
	},
	{
		Minor: "1.9", Reference: "v1.9.2",
		CRDs:         crds17,
		Kubernetes:   [2]string{"1.26", "1.35"},
		FeatureGates: gates("nodeRepair", "nodeOverlay", "reservedCapacity=true", "spotToSpotConsolidation", "staticCapacity"),
		IAM: IAM{
			Split:                   true,
			InstanceAccessResources: instanceAccess13, TaggedCreateResources: taggedCreate10,
			RegionalReadActions: withRead("ec2:DescribeCapacityReservations"), PassedToServiceList: true,
			ListInstanceProfiles: true,
		},
		NodeRolePolicies: ecrPullOnly, InterruptionRules: rulesBase,
		Labels:      Labels{AWSKeys: awsKeys19},
		AMIFamilies: amiFamilies19, ConsolidationPolicies: policies10, RequirementOperators: operators19, CapacityTypes: capacity13,
	},
	{
		Minor: "1.10", Reference: "v1.10.2",
		CRDs:         crds17,
		Kubernetes:   [2]string{"1.26", "1.35"},
		FeatureGates: gates("nodeRepair", "nodeOverlay", "reservedCapacity=true", "spotToSpotConsolidation", "staticCapacity"),
		IAM: IAM{
			Split:                   true,
			InstanceAccessResources: instanceAccess13, TaggedCreateResources: taggedCreate10,
			RegionalReadActions: withRead("ec2:DescribeCapacityReservations"), PassedToServiceList: true,
			ListInstanceProfiles: true,
		},
		NodeRolePolicies: ecrPullOnly, InterruptionRules: rulesCapacityReservation,
		Labels:      Labels{AWSKeys: awsKeys110},
		AMIFamilies: amiFamilies19, ConsolidationPolicies: policies10, RequirementOperators: operators19, CapacityTypes: capacity13,
	},
	{
		Minor: "1.11", Reference: "v1.11.3",
		CRDs:         crds17,
		Kubernetes:   [2]string{"1.26", "1.35"},
		FeatureGates: gates("nodeRepair", "nodeOverlay", "reservedCapacity=true", "spotToSpotConsolidation", "staticCapacity"),
		IAM: IAM{
			Split:                   true,
			InstanceAccessResources: instanceAccess111, TaggedCreateResources: taggedCreate10,
			RegionalReadActions: withRead("ec2:DescribeCapacityReservations", "ec2:DescribePlacementGroups"), PassedToServiceList: true,
			ListInstanceProfiles: true,
		},
		NodeRolePolicies: ecrPullOnly, InterruptionRules: rulesCapacityReservation,
		Labels:      Labels{AWSKeys: awsKeys111},
		AMIFamilies: amiFamilies19, ConsolidationPolicies: policies10, RequirementOperators: operators19, CapacityTypes: capacity13,
		BadPatches: []BadPatch{{Patch: 0, FixedIn: 1, Issue: "https://github.com/kubernetes-sigs/karpenter/issues/2958",
			Summary: "the controller's CPU use regressed"}},
	},
	{
		Minor: "1.12", Reference: "v1.12.2",
		CRDs:         crds17,
		Kubernetes:   [2]string{"1.26", "1.35"},
		FeatureGates: gates("nodeRepair", "nodeOverlay", "reservedCapacity=true", "spotToSpotConsolidation", "staticCapacity"),
		IAM: IAM{
			Split:                   true,
			InstanceAccessResources: instanceAccess111, TaggedCreateResources: taggedCreate10,
			RegionalReadActions: withRead("ec2:DescribeCapacityReservations", "ec2:DescribePlacementGroups"), PassedToServiceList: true,
			ListInstanceProfiles: true, UnscopedDescribeInstanceStatus: true, ZonalShift: "cluster",
		},
		NodeRolePolicies: ecrPullOnly, InterruptionRules: rulesCapacityReservation,
		Labels:      Labels{AWSKeys: awsKeys111},
		AMIFamilies: amiFamilies19, ConsolidationPolicies: policies10, RequirementOperators: operators19, CapacityTypes: capacity13,
	},
	{
		Minor: "1.13", Reference: "v1.13.1",
		CRDs:         crds17,
		Kubernetes:   [2]string{"1.26", "1.36"},
		FeatureGates: gates("nodeRepair", "nodeOverlay", "reservedCapacity=true", "spotToSpotConsolidation", "staticCapacity"),
		IAM: IAM{
			Split:                   true,
			InstanceAccessResources: instanceAccess111, TaggedCreateResources: taggedCreate10,
			RegionalReadActions: withRead("ec2:DescribeCapacityReservations", "ec2:DescribePlacementGroups", "ec2:DescribeInstanceStatus"),
			PassedToServiceList: true, ListInstanceProfiles: true, ZonalShift: "condition",
		},
		NodeRolePolicies: ecrPullOnly, InterruptionRules: rulesCapacityReservation,
		Labels:      Labels{AWSKeys: awsKeys111},
		AMIFamilies: amiFamilies19, ConsolidationPolicies: policies10, RequirementOperators: operators19, CapacityTypes: capacity13,
	},
	{
		Minor: "1.14", Reference: "v1.14.1",
		CRDs:         crds114,
		Kubernetes:   [2]string{"1.26", "1.36"},
		FeatureGates: gates("nodeRepair", "nodeOverlay", "reservedCapacity=true", "spotToSpotConsolidation", "staticCapacity", "capacityBuffer"),
		IAM: IAM{
			Split:                   true,
			InstanceAccessResources: instanceAccess111, TaggedCreateResources: taggedCreate10,
			RegionalReadActions: withRead("ec2:DescribeCapacityReservations", "ec2:DescribePlacementGroups", "ec2:DescribeInstanceStatus"),
			PassedToServiceList: true, ListInstanceProfiles: true, ZonalShift: "condition",
		},
		NodeRolePolicies: ecrPullOnly, InterruptionRules: rulesCapacityReservation,
		Labels:      Labels{AWSKeys: awsKeys111},
		AMIFamilies: amiFamilies19, ConsolidationPolicies: policies114, RequirementOperators: operators19, CapacityTypes: capacity13,
	},
}
