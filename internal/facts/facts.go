// Package facts is the one table of per-version upstream facts karpgen
// follows: for every supported Karpenter v1 minor, its Kubernetes range,
// chart feature gates and settings, controller IAM shape, node role
// policies, interruption rules and CRD label rules. Each row was read from
// that minor's latest patch (getting-started CloudFormation, chart values
// and CRDs). A new minor is one new row.
package facts

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Minor holds the facts of one Karpenter minor version.
type Minor struct {
	// Minor is "1.14"; Reference is the tag the facts were read from.
	Minor     string
	Reference string
	// Kubernetes is the supported [min, max] range of Kubernetes minors.
	Kubernetes [2]string
	// KubernetesFrom says where the range comes from when upstream's
	// compatibility matrix does not list the minor; "" when it does.
	KubernetesFrom string
	// Released is the day the minor's first release (.0) was published.
	Released string
	// LTSUntil is the last day of support of a long-term-support minor,
	// "" for a minor supported only until the next one is released.
	LTSUntil string
	// FeatureGates lists the chart's settings.featureGates with defaults,
	// in the chart's order.
	FeatureGates []Gate
	// AWSFeatureGates lists the chart's settings.awsFeatureGates (1.15
	// and later) with defaults, in the chart's order.
	AWSFeatureGates []Gate
	IAM             IAM
	// NodeRolePolicies are the AWS managed policies of the node role.
	NodeRolePolicies []string
	// InterruptionRules are the EventBridge rules of the template.
	InterruptionRules []Rule
	Labels            Labels
	// AMIFamilies are the alias families the EC2NodeClass CRD accepts.
	AMIFamilies []string
	// ConsolidationPolicies are the NodePool consolidation policies.
	ConsolidationPolicies []string
	// RequirementOperators are the operators NodePool requirements accept.
	RequirementOperators []string
	// CapacityTypes are the values of karpenter.sh/capacity-type.
	CapacityTypes []string
	// BudgetReasons are the disruption reasons a NodePool budget may name.
	BudgetReasons []string
	// ConversionWebhook: the controller still serves the v1beta1 APIs
	// through the CRDs' conversion webhook (1.0 only), which the CRD
	// chart points at the controller's namespace.
	ConversionWebhook bool
	// OpenKubelet: the EC2NodeClass takes kubelet as an open map, any
	// field of the upstream KubeletConfiguration, which the controller
	// decodes strictly (1.15+); before, a fixed subset the CRD checks.
	OpenKubelet bool
	// Errata are upstream bugs of this minor's published artifacts that a
	// later release fixed; the row already carries the fix.
	Errata []Erratum
	// BadPatches are patch releases of this minor with a known regression.
	BadPatches []BadPatch
	// CRDs are the kinds whose CRDs the minor installs (karpenter-crd chart).
	CRDs []string
	// Chart is what the karpenter chart creates with karpgen's values.
	Chart Chart
}

// BadPatch is a patch release with a known regression, and the patch
// that fixed it.
type BadPatch struct {
	Patch, FixedIn int
	Issue, Summary string
}

// BadPatch returns the known regression of an exact version, if any.
func (m *Minor) BadPatch(v Version) (BadPatch, bool) {
	for _, b := range m.BadPatches {
		if b.Patch == v.Patch {
			return b, true
		}
	}
	return BadPatch{}, false
}

// Erratum is an upstream bug in a minor's published artifacts, fixed in a
// later minor, whose fix karpgen applies to the minors that shipped it.
type Erratum struct {
	// Issue is the upstream issue (and Fix the pull request) of the bug.
	Issue, Fix string
	// FixedIn is the first minor whose artifacts carry the fix.
	FixedIn string
	// Statement is the Sid of the controller policy statement the fix
	// changes: karpgen emits it as FixedIn's template has it.
	Statement string
	// Summary says what was wrong and what karpgen emits instead.
	Summary string
}

// errPassRoleChina: the 1.0 template lets the controller pass the node
// role to ec2.amazonaws.com only, which aws-cn does not match
// (aws/karpenter-provider-aws#6843, fixed by #6839 in 1.1).
var errPassRoleChina = Erratum{
	Issue:     "https://github.com/aws/karpenter-provider-aws/issues/6843",
	Fix:       "https://github.com/aws/karpenter-provider-aws/pull/6839",
	FixedIn:   "1.1",
	Statement: "AllowPassingInstanceRole",
	Summary: "upstream's 1.0 policy passes the node role to ec2.amazonaws.com only, so iam:PassRole is denied in aws-cn; " +
		"karpgen lists ec2.amazonaws.com.cn too, as 1.1 does",
}

// errZonalShiftResource: the 1.12 template scopes
// arc-zonal-shift:GetManagedResource to the cluster's ARN, a resource the
// action does not have, so the statement allows nothing and zonal shift
// status reads are denied (aws/karpenter-provider-aws#9118, fixed by
// #9123 for 1.13 with Resource "*" and an arc-zonal-shift:ResourceIdentifier
// condition). TestControllerCallsAreAllowed finds it in 1.12's code.
var errZonalShiftResource = Erratum{
	Issue:     "https://github.com/aws/karpenter-provider-aws/issues/9118",
	Fix:       "https://github.com/aws/karpenter-provider-aws/pull/9123",
	FixedIn:   "1.13",
	Statement: "AllowZonalShiftStatusReadOnly",
	Summary: "upstream's 1.12 policy scopes arc-zonal-shift:GetManagedResource to the cluster ARN, which the action cannot be scoped to, so it allows nothing; " +
		"karpgen emits 1.13's statement (Resource \"*\" with an arc-zonal-shift:ResourceIdentifier condition on the cluster ARN)",
}

// Gate is one feature gate and its chart default.
type Gate struct {
	Name    string
	Default bool
	// Unset: the chart's default is null, and a value set alongside
	// another setting may fail the chart (settings.enableDRA and the DRA
	// gates): the values carry it only when the profile sets it.
	Unset bool
}

// IAM is the shape of the getting-started controller policy.
type IAM struct {
	// Split: upstream ships six managed policies instead of one (v1.9+).
	Split bool
	// InstanceAccessResources are the ec2 resource types RunInstances and
	// CreateFleet may read (AllowScopedEC2InstanceAccessActions).
	InstanceAccessResources []string
	// TaggedCreateResources are the resource types created with tags
	// (AllowScopedEC2InstanceActionsWithTags).
	TaggedCreateResources []string
	// RegionalReadActions are the read actions scoped to the region.
	RegionalReadActions []string
	// PassedToServiceList: iam:PassedToService lists the China endpoint too.
	PassedToServiceList bool
	// ListInstanceProfiles: iam:ListInstanceProfiles is allowed (v1.7+).
	ListInstanceProfiles bool
	// UnscopedDescribeInstanceStatus: a statement of its own (v1.12 only).
	UnscopedDescribeInstanceStatus bool
	// ZonalShift: "" (none) or "condition" (resource * with an
	// arc-zonal-shift:ResourceIdentifier condition; 1.12's template scoped
	// it to the cluster ARN instead, an erratum).
	ZonalShift string
	// RebootForRepair: node repair may reboot an instance
	// (ec2:RebootInstances, behind awsFeatureGates.rebootForRepair, v1.15).
	RebootForRepair bool
	// NoTemplate: the reference holds no getting-started template of the
	// minor; the shape is derived from the previous minor's template and
	// the minor's code.
	NoTemplate bool
}

// Rule is an EventBridge rule feeding the interruption queue.
type Rule struct {
	Name       string // logical name in the upstream template
	Source     string
	DetailType string
}

// Labels are the CRD's rules on NodePool label and requirement keys.
type Labels struct {
	// AWSKeys are the karpenter.k8s.aws/ keys the CRD allows.
	AWSKeys []string
	// RestrictKubernetesDomains: the CRD refuses *kubernetes.io and *k8s.io
	// keys outside a short allow-list (up to v1.8).
	RestrictKubernetesDomains bool
}

var (
	awsKeys10 = []string{
		"karpenter.k8s.aws/instance-category", "karpenter.k8s.aws/instance-family",
		"karpenter.k8s.aws/instance-generation", "karpenter.k8s.aws/instance-size",
		"karpenter.k8s.aws/instance-cpu", "karpenter.k8s.aws/instance-cpu-manufacturer",
		"karpenter.k8s.aws/instance-memory", "karpenter.k8s.aws/instance-hypervisor",
		"karpenter.k8s.aws/instance-encryption-in-transit-supported",
		"karpenter.k8s.aws/instance-local-nvme", "karpenter.k8s.aws/instance-ebs-bandwidth",
		"karpenter.k8s.aws/instance-network-bandwidth", "karpenter.k8s.aws/instance-gpu-name",
		"karpenter.k8s.aws/instance-gpu-manufacturer", "karpenter.k8s.aws/instance-gpu-count",
		"karpenter.k8s.aws/instance-gpu-memory", "karpenter.k8s.aws/instance-accelerator-name",
		"karpenter.k8s.aws/instance-accelerator-manufacturer",
		"karpenter.k8s.aws/instance-accelerator-count",
	}

	ec2ReadBase = []string{
		"ec2:DescribeImages", "ec2:DescribeInstances", "ec2:DescribeInstanceTypeOfferings",
		"ec2:DescribeInstanceTypes", "ec2:DescribeLaunchTemplates", "ec2:DescribeSecurityGroups",
		"ec2:DescribeSpotPriceHistory", "ec2:DescribeSubnets",
	}

	rulesBase = []Rule{
		{"ScheduledChangeRule", "aws.health", "AWS Health Event"},
		{"SpotInterruptionRule", "aws.ec2", "EC2 Spot Instance Interruption Warning"},
		{"RebalanceRule", "aws.ec2", "EC2 Instance Rebalance Recommendation"},
		{"InstanceStateChangeRule", "aws.ec2", "EC2 Instance State-change Notification"},
	}
	rulesCapacityReservation = append(clone(rulesBase),
		Rule{"CapacityReservationInterruptionRule", "aws.ec2", "EC2 Capacity Reservation Instance Interruption Warning"})

	crds10  = []string{"EC2NodeClass", "NodeClaim", "NodePool"}
	crds17  = append(clone(crds10), "NodeOverlay")
	crds114 = append(clone(crds17), "CapacityBuffer")

	ecrReadOnly = []string{"AmazonEKS_CNI_Policy", "AmazonEKSWorkerNodePolicy", "AmazonEC2ContainerRegistryReadOnly", "AmazonSSMManagedInstanceCore"}
	ecrPullOnly = []string{"AmazonEKS_CNI_Policy", "AmazonEKSWorkerNodePolicy", "AmazonEC2ContainerRegistryPullOnly", "AmazonSSMManagedInstanceCore"}

	instanceAccess10  = []string{"image", "snapshot", "security-group", "subnet"}
	instanceAccess13  = append(clone(instanceAccess10), "capacity-reservation")
	instanceAccess111 = append(clone(instanceAccess13), "placement-group")

	taggedCreate10 = []string{"fleet", "instance", "volume", "network-interface", "launch-template", "spot-instances-request"}
	taggedCreate13 = append(clone(taggedCreate10), "capacity-reservation")

	amiFamilies10 = []string{"al2", "al2023", "bottlerocket", "windows2019", "windows2022"}
	amiFamilies19 = append(clone(amiFamilies10), "windows2025")

	policies10  = []string{"WhenEmpty", "WhenEmptyOrUnderutilized"}
	policies114 = append(clone(policies10), "Balanced")

	operators10 = []string{"In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"}
	operators19 = append(clone(operators10), "Gte", "Lte")

	reasons10  = []string{"Underutilized", "Empty", "Drifted"}
	reasons115 = append(clone(reasons10), "Unhealthy")

	capacity10 = []string{"on-demand", "spot"}
	capacity13 = append(clone(capacity10), "reserved")
)

func clone[T any](s []T) []T { return append([]T(nil), s...) }

func gates(names ...string) []Gate {
	out := make([]Gate, 0, len(names))
	for _, n := range names {
		name, def := strings.CutSuffix(n, "=true")
		name, unset := strings.CutSuffix(name, "=null")
		out = append(out, Gate{Name: name, Default: def, Unset: unset})
	}
	return out
}

func withRead(extra ...string) []string {
	out := append(clone(ec2ReadBase), extra...)
	// Upstream lists the actions in case-insensitive order.
	slices.SortFunc(out, func(a, b string) int { return strings.Compare(strings.ToLower(a), strings.ToLower(b)) })
	return out
}

// Parsed version components.
type Version struct {
	Major, Minor, Patch int
}

func (v Version) String() string { return fmt.Sprintf("%d.%d.%d", v.Major, v.Minor, v.Patch) }

// MinorString is "1.14".
func (v Version) MinorString() string { return fmt.Sprintf("%d.%d", v.Major, v.Minor) }

// ParseVersion parses "1.2.3" (an optional leading "v" is accepted).
func ParseVersion(s string) (Version, error) {
	parts := strings.Split(strings.TrimPrefix(s, "v"), ".")
	if len(parts) != 3 {
		return Version{}, fmt.Errorf("%q is not a Karpenter release version (MAJOR.MINOR.PATCH, e.g. \"1.2.3\")", s)
	}
	var n [3]int
	for i, p := range parts {
		x, err := strconv.Atoi(p)
		if err != nil || x < 0 || (len(p) > 1 && p[0] == '0') {
			return Version{}, fmt.Errorf("%q is not a Karpenter release version (MAJOR.MINOR.PATCH, e.g. \"1.2.3\")", s)
		}
		n[i] = x
	}
	return Version{n[0], n[1], n[2]}, nil
}

// Lookup returns the facts of the minor of version v.
func Lookup(v Version) (*Minor, bool) { return LookupMinor(v.MinorString()) }

// LookupMinor returns the row of a minor given as "1.4".
func LookupMinor(minor string) (*Minor, bool) {
	for i := range Minors {
		if Minors[i].Minor == minor {
			return &Minors[i], true
		}
	}
	return nil, false
}

// KubernetesRange is the supported Kubernetes range of an exact version:
// it is the minor's range, except where a patch widened it.
func KubernetesRange(v Version, m *Minor) [2]string {
	if v.Major == 1 && v.Minor == 0 && v.Patch < 5 {
		return [2]string{"1.25", "1.30"} // 1.31 support arrived in 1.0.5
	}
	return m.Kubernetes
}

// NewestPatch is the newest release of the minor karpgen knows: the
// reference release its facts were read from.
func (m *Minor) NewestPatch() Version {
	v, _ := ParseVersion(m.Reference)
	return v
}

// Known reports whether v is a release karpgen knows of its minor: a
// patch up to the newest.
func (m *Minor) Known(v Version) bool { return !m.NewestPatch().Less(v) }

// SupportEnds is the day the minor's support ends: LTSUntil for a
// long-term-support minor, the next minor's release day for another (the
// policy of SUPPORT.md, aws/karpenter-provider-aws#9313); "" while no
// newer minor is known.
func (m *Minor) SupportEnds() string {
	if m.LTSUntil != "" {
		return m.LTSUntil
	}
	for i := range Minors {
		if MinorLess(m.Minor, Minors[i].Minor) {
			return Minors[i].Released
		}
	}
	return ""
}

// SupportedOn reports whether the minor is supported on a day written
// YYYY-MM-DD (support ends at the start of SupportEnds).
func (m *Minor) SupportedOn(day string) bool {
	end := m.SupportEnds()
	return end == "" || day < end
}

// Support says in a sentence how long the minor is supported, the same
// whatever the day: "Karpenter 1.14 is a long-term-support minor; its
// support ends on 2027-07-11". SupportEnds is the first day without
// support, so the sentence names it as the day support ends, never as a
// day "until" which it is still supported.
func (m *Minor) Support() string {
	end := m.SupportEnds()
	switch {
	case m.LTSUntil != "":
		return fmt.Sprintf("Karpenter %s is a long-term-support minor; its support ends on %s", m.Minor, end)
	case end == "":
		return fmt.Sprintf("Karpenter %s is the newest minor; its support ends on the day the next minor is released", m.Minor)
	}
	return fmt.Sprintf("Karpenter %s's support ends on %s, the day the next minor was released", m.Minor, end)
}

// LTS are the long-term-support minors, oldest first.
func LTS() []*Minor {
	var out []*Minor
	for i := range Minors {
		if Minors[i].LTSUntil != "" {
			out = append(out, &Minors[i])
		}
	}
	return out
}

// ConfirmedKubernetes is the newest Kubernetes minor upstream's
// compatibility matrix confirms for a supported Karpenter minor: new
// profiles start there rather than at a maximum derived from go.mod.
func ConfirmedKubernetes() string {
	for i := len(Minors) - 1; i >= 0; i-- {
		if Minors[i].KubernetesFrom == "" {
			return Minors[i].Kubernetes[1]
		}
	}
	return Newest().Kubernetes[1]
}

// Template is the row whose reference holds the getting-started template
// the minor's IAM follows: the minor's own, or for a minor without one
// (IAM.NoTemplate) the nearest older minor's.
func (m *Minor) Template() *Minor {
	for i := len(Minors) - 1; i >= 0; i-- {
		r := &Minors[i]
		if !r.IAM.NoTemplate && !MinorLess(m.Minor, r.Minor) {
			return r
		}
	}
	return m
}

// Oldest and Newest name the supported range for messages.
func Oldest() *Minor { return &Minors[0] }
func Newest() *Minor { return &Minors[len(Minors)-1] }

// Less reports whether v is an older release than w.
func (v Version) Less(w Version) bool {
	if v.Major != w.Major {
		return v.Major < w.Major
	}
	if v.Minor != w.Minor {
		return v.Minor < w.Minor
	}
	return v.Patch < w.Patch
}

// Compare orders v and w as releases, for slices.SortFunc.
func (v Version) Compare(w Version) int {
	switch {
	case v.Less(w):
		return -1
	case w.Less(v):
		return 1
	}
	return 0
}

// MinorBefore reports whether v's minor is older than w's, whatever
// their patches.
func (v Version) MinorBefore(w Version) bool {
	return v.Major < w.Major || v.Major == w.Major && v.Minor < w.Minor
}

// ZeroSpan is a span of 0.x minors the planner moves through its last
// minor: the v1beta1 APIs (0.33 to 0.37, then 1.0), and the v1alpha5
// start (0.31 and 0.32, whose 0.32 serves both APIs so that a cluster
// converts its objects while both run).
type ZeroSpan struct {
	// Minor is the span's last minor, Reference its latest patch.
	Minor, Reference string
	// Oldest is the span's oldest minor (0.33; 0.31, the one whose
	// latest patch supports rolling back from 0.32).
	Oldest int
	// Kubernetes is the range of the last minor in upstream's
	// compatibility matrix (TestZeroKubernetesRanges holds it).
	Kubernetes [2]string
}

// Beta is the v1beta1 span the v1 migration starts from.
var Beta = ZeroSpan{Minor: "0.37", Reference: "v0.37.8", Oldest: 33, Kubernetes: [2]string{"1.23", "1.30"}}

// Alpha is the v1alpha5 span the v1beta1 migration starts from.
var Alpha = ZeroSpan{Minor: "0.32", Reference: "v0.32.10", Oldest: 31, Kubernetes: [2]string{"1.23", "1.28"}}

// Holds reports whether v is a release of the span, 0.Oldest to its last
// minor.
func (z ZeroSpan) Holds(v Version) bool {
	last, err := ParseVersion(z.Minor + ".0")
	return err == nil && v.Major == 0 && v.Minor >= z.Oldest && !last.MinorBefore(v)
}

// ZeroKubernetes is the Kubernetes range of a 0.x release karpgen plans
// through (the v1alpha5 and v1beta1 minors).
func ZeroKubernetes(v Version) [2]string {
	if Alpha.Holds(v) {
		return Alpha.Kubernetes
	}
	return Beta.Kubernetes
}

// CRD is a CustomResourceDefinition a minor installs: its name and the
// version it serves and stores. TestCRDNamesMatchUpstream holds the table
// to every minor's CRDs.
type CRD struct {
	Kind, Name, Version string
}

// crdTable is every kind's CRD.
var crdTable = map[string]CRD{
	"EC2NodeClass":   {"EC2NodeClass", "ec2nodeclasses.karpenter.k8s.aws", "v1"},
	"NodeClaim":      {"NodeClaim", "nodeclaims.karpenter.sh", "v1"},
	"NodePool":       {"NodePool", "nodepools.karpenter.sh", "v1"},
	"NodeOverlay":    {"NodeOverlay", "nodeoverlays.karpenter.sh", "v1alpha1"},
	"CapacityBuffer": {"CapacityBuffer", "capacitybuffers.autoscaling.x-k8s.io", "v1beta1"},
}

// CRDsOf are the CRDs the minor installs, by kind in the row's order.
func (m *Minor) CRDsOf() []CRD {
	out := make([]CRD, 0, len(m.CRDs))
	for _, k := range m.CRDs {
		out = append(out, crdTable[k])
	}
	return out
}

// NextMinor is the minor after k ("1.33" after "1.32").
func NextMinor(k string) string {
	var major, minor int
	fmt.Sscanf(k, "%d.%d", &major, &minor)
	return fmt.Sprintf("%d.%d", major, minor+1)
}

// MinorLess orders minor versions written "1.9" or "1.32" (Kubernetes's):
// 1.9 comes before 1.32. It is the one comparison of minors karpgen makes.
func MinorLess(a, b string) bool {
	var am, an, bm, bn int
	fmt.Sscanf(a, "%d.%d", &am, &an)
	fmt.Sscanf(b, "%d.%d", &bm, &bn)
	return am < bm || am == bm && an < bn
}
