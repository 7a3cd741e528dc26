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
//
// Released is the publication day of the minor's .0 release: the time the
// Go module proxy gives for github.com/aws/karpenter-provider-aws@vX.Y.0
// (`go list -m -json`), or, where the proxy refuses that version
// (1.1 to 1.8), for sigs.k8s.io/karpenter@vX.Y.0, which upstream releases
// with it. LTSUntil follows SUPPORT.md (aws/karpenter-provider-aws#9313):
// a minor becomes LTS every six months and is supported for twelve; 1.9
// and 1.14 are the LTS minors so far.
var Minors = []Minor{
	{
		Minor: "1.0", Reference: "v1.0.14",
		Released:     "2024-08-14",
		CRDs:         crds10,
		Chart:        chart10,
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
		BudgetReasons: reasons10, ConversionWebhook: true,
		Errata: []Erratum{errPassRoleChina},
	},
	{
		Minor: "1.1", Reference: "v1.1.10",
		Released:     "2024-11-30",
		CRDs:         crds10,
		Chart:        chart11,
		Kubernetes:   [2]string{"1.25", "1.31"},
		FeatureGates: gates("spotToSpotConsolidation", "nodeRepair"),
		IAM: IAM{
			InstanceAccessResources: instanceAccess10, TaggedCreateResources: taggedCreate10,
			RegionalReadActions: withRead(), PassedToServiceList: true,
		},
		NodeRolePolicies: ecrReadOnly, InterruptionRules: rulesBase,
		Labels:      Labels{AWSKeys: awsKeys11, RestrictKubernetesDomains: true},
		AMIFamilies: amiFamilies10, ConsolidationPolicies: policies10, RequirementOperators: operators10, CapacityTypes: capacity10,
		BudgetReasons: reasons10,
	},
	{
		Minor: "1.2", Reference: "v1.2.8",
		Released:     "2025-01-24",
		CRDs:         crds10,
		Chart:        chart11,
		Kubernetes:   [2]string{"1.25", "1.32"},
		FeatureGates: gates("spotToSpotConsolidation", "nodeRepair"),
		IAM: IAM{
			InstanceAccessResources: instanceAccess10, TaggedCreateResources: taggedCreate10,
			RegionalReadActions: withRead(), PassedToServiceList: true,
		},
		NodeRolePolicies: ecrReadOnly, InterruptionRules: rulesBase,
		Labels:      Labels{AWSKeys: awsKeys11, RestrictKubernetesDomains: true},
		AMIFamilies: amiFamilies10, ConsolidationPolicies: policies10, RequirementOperators: operators10, CapacityTypes: capacity10,
		BudgetReasons: reasons10,
	},
	{
		Minor: "1.3", Reference: "v1.3.8",
		Released:     "2025-03-04",
		CRDs:         crds10,
		Chart:        chart11,
		Kubernetes:   [2]string{"1.25", "1.32"},
		FeatureGates: gates("nodeRepair", "reservedCapacity", "spotToSpotConsolidation"),
		IAM: IAM{
			InstanceAccessResources: instanceAccess13, TaggedCreateResources: taggedCreate13,
			RegionalReadActions: withRead("ec2:DescribeCapacityReservations"), PassedToServiceList: true,
		},
		NodeRolePolicies: ecrReadOnly, InterruptionRules: rulesBase,
		Labels:      Labels{AWSKeys: awsKeys13, RestrictKubernetesDomains: true},
		AMIFamilies: amiFamilies10, ConsolidationPolicies: policies10, RequirementOperators: operators10, CapacityTypes: capacity13,
		BudgetReasons: reasons10,
	},
	{
		Minor: "1.4", Reference: "v1.4.4",
		Released:     "2025-04-16",
		CRDs:         crds10,
		Chart:        chart11,
		Kubernetes:   [2]string{"1.25", "1.32"},
		FeatureGates: gates("nodeRepair", "reservedCapacity", "spotToSpotConsolidation"),
		IAM: IAM{
			InstanceAccessResources: instanceAccess13, TaggedCreateResources: taggedCreate13,
			RegionalReadActions: withRead("ec2:DescribeCapacityReservations"), PassedToServiceList: true,
		},
		NodeRolePolicies: ecrPullOnly, InterruptionRules: rulesBase,
		Labels:      Labels{AWSKeys: awsKeys13, RestrictKubernetesDomains: true},
		AMIFamilies: amiFamilies10, ConsolidationPolicies: policies10, RequirementOperators: operators10, CapacityTypes: capacity13,
		BudgetReasons: reasons10,
	},
	{
		Minor: "1.5", Reference: "v1.5.8",
		Released:     "2025-05-23",
		CRDs:         crds10,
		Chart:        chart11,
		Kubernetes:   [2]string{"1.26", "1.33"},
		FeatureGates: gates("nodeRepair", "reservedCapacity", "spotToSpotConsolidation"),
		IAM: IAM{
			InstanceAccessResources: instanceAccess13, TaggedCreateResources: taggedCreate13,
			RegionalReadActions: withRead("ec2:DescribeCapacityReservations"), PassedToServiceList: true,
		},
		NodeRolePolicies: ecrPullOnly, InterruptionRules: rulesBase,
		Labels:      Labels{AWSKeys: awsKeys13, RestrictKubernetesDomains: true},
		AMIFamilies: amiFamilies10, ConsolidationPolicies: policies10, RequirementOperators: operators10, CapacityTypes: capacity13,
		BudgetReasons: reasons10,
	},
	{
		Minor: "1.6", Reference: "v1.6.8",
		Released:     "2025-07-11",
		CRDs:         crds10,
		Chart:        chart11,
		Kubernetes:   [2]string{"1.26", "1.34"},
		FeatureGates: gates("nodeRepair", "reservedCapacity=true", "spotToSpotConsolidation"),
		IAM: IAM{
			InstanceAccessResources: instanceAccess13, TaggedCreateResources: taggedCreate13,
			RegionalReadActions: withRead("ec2:DescribeCapacityReservations"), PassedToServiceList: true,
		},
		NodeRolePolicies: ecrPullOnly, InterruptionRules: rulesBase,
		Labels:      Labels{AWSKeys: awsKeys16, RestrictKubernetesDomains: true},
		AMIFamilies: amiFamilies10, ConsolidationPolicies: policies10, RequirementOperators: operators10, CapacityTypes: capacity13,
		BudgetReasons: reasons10,
	},
	{
		Minor: "1.7", Reference: "v1.7.6",
		Released:     "2025-09-15",
		CRDs:         crds17,
		Chart:        chart11,
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
		BudgetReasons: reasons10,
	},
	{
		Minor: "1.8", Reference: "v1.8.8",
		Released:     "2025-10-08",
		CRDs:         crds17,
		Chart:        chart11,
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
		BudgetReasons: reasons10,
		BadPatches: []BadPatch{{Patch: 4, FixedIn: 5, Issue: "https://github.com/kubernetes-sigs/karpenter/issues/2785",
			Summary: "its core (kubernetes-sigs/karpenter 1.8.1) cannot schedule pods with some topologySpreadConstraints and uses several times the memory (aws/karpenter-provider-aws#8841)"}},
	},
	{
		Minor: "1.9", Reference: "v1.9.3",
		Released: "2026-02-06", LTSUntil: "2027-02-06",
		CRDs:         crds17,
		Chart:        chart11,
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
		BudgetReasons: reasons10,
	},
	{
		Minor: "1.10", Reference: "v1.10.2",
		Released:     "2026-03-20",
		CRDs:         crds17,
		Chart:        chart11,
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
		BudgetReasons: reasons10,
	},
	{
		Minor: "1.11", Reference: "v1.11.3",
		Released:     "2026-04-06",
		CRDs:         crds17,
		Chart:        chart11,
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
		BudgetReasons: reasons10,
		BadPatches: []BadPatch{{Patch: 0, FixedIn: 1, Issue: "https://github.com/kubernetes-sigs/karpenter/issues/2958",
			Summary: "the controller's CPU use regressed"}},
	},
	{
		Minor: "1.12", Reference: "v1.12.2",
		Released:     "2026-04-24",
		CRDs:         crds17,
		Chart:        chart11,
		Kubernetes:   [2]string{"1.26", "1.35"},
		FeatureGates: gates("nodeRepair", "nodeOverlay", "reservedCapacity=true", "spotToSpotConsolidation", "staticCapacity"),
		IAM: IAM{
			Split:                   true,
			InstanceAccessResources: instanceAccess111, TaggedCreateResources: taggedCreate10,
			RegionalReadActions: withRead("ec2:DescribeCapacityReservations", "ec2:DescribePlacementGroups"), PassedToServiceList: true,
			ListInstanceProfiles: true, UnscopedDescribeInstanceStatus: true, ZonalShift: "condition",
		},
		NodeRolePolicies: ecrPullOnly, InterruptionRules: rulesCapacityReservation,
		Labels:      Labels{AWSKeys: awsKeys111},
		AMIFamilies: amiFamilies19, ConsolidationPolicies: policies10, RequirementOperators: operators19, CapacityTypes: capacity13,
		BudgetReasons: reasons10,
		Errata:        []Erratum{errZonalShiftResource},
	},
	{
		Minor: "1.13", Reference: "v1.13.1",
		Released:     "2026-06-10",
		CRDs:         crds17,
		Chart:        chart11,
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
		BudgetReasons: reasons10,
	},
	{
		Minor: "1.14", Reference: "v1.14.3",
		Released: "2026-07-11", LTSUntil: "2027-07-11",
		CRDs:         crds114,
		Chart:        chart11,
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
		BudgetReasons: reasons10,
	},
	{
		// 1.15's getting-started template is not in the reference (the
		// module proxy serves the release but not upstream's website): its
		// IAM is 1.14's plus what 1.15's code calls beyond it, which is
		// ec2:RebootInstances behind awsFeatureGates.rebootForRepair. Its
		// Kubernetes range is not in upstream's compatibility matrix yet:
		// the maximum is the Kubernetes minor its module builds against
		// (k8s.io/api v0.37.0), the minimum 1.14's.
		Minor: "1.15", Reference: "v1.15.2",
		Released:       "2026-10-10",
		CRDs:           crds114,
		Chart:          chart11,
		Kubernetes:     [2]string{"1.26", "1.37"},
		KubernetesFrom: "go.mod: k8s.io/api v0.37.0 (not in the compatibility matrix)",
		FeatureGates: gates("nodeRepair", "nodeOverlay", "reservedCapacity=true", "spotToSpotConsolidation", "staticCapacity", "capacityBuffer",
			"terminateFirstDrift", "terminateFirstRepair", "podDeletionCostManagement"),
		AWSFeatureGates: gates("nodeClassCEL", "draNVIDIAGPU=null", "draEFA=null", "rebootForRepair"),
		IAM: IAM{
			Split:                   true,
			InstanceAccessResources: instanceAccess111, TaggedCreateResources: taggedCreate10,
			RegionalReadActions: withRead("ec2:DescribeCapacityReservations", "ec2:DescribePlacementGroups", "ec2:DescribeInstanceStatus"),
			PassedToServiceList: true, ListInstanceProfiles: true, ZonalShift: "condition",
			RebootForRepair: true, NoTemplate: true,
		},
		NodeRolePolicies: ecrPullOnly, InterruptionRules: rulesCapacityReservation,
		Labels:      Labels{AWSKeys: awsKeys111},
		AMIFamilies: amiFamilies19, ConsolidationPolicies: policies114, RequirementOperators: operators19, CapacityTypes: capacity13,
		BudgetReasons: reasons115, OpenKubelet: true,
	},
}
