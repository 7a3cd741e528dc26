// Package iampolicy builds the Karpenter controller's IAM policies for a
// resolved environment, from the facts of its minor: the statements
// upstream grants, split into managed policies as upstream splits them
// (or as the IAM size limit requires). The generators write them, the
// guardrail evaluator evaluates them, and the upgrade planner and the
// doctor compare against them, so every one of them sees the same policy.
package iampolicy

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/karpgen/karpgen/internal/facts"
	"github.com/karpgen/karpgen/internal/model"
)

// obj is a JSON object; encoding sorts its keys.
type obj = map[string]any

// MaxPolicySize is the IAM limit on a managed policy document, counted
// without whitespace.
const MaxPolicySize = 6144

// ControllerPolicy is one managed policy of the controller role.
type ControllerPolicy struct {
	// Part names the policy ("NodeLifecycle", ...; "" for a single policy).
	Part string
	// File is the bundle file name under iam/.
	File string
	Name string
	// LogicalID is the policy's resource in iam/cloudformation.yaml:
	// upstream's own ID wherever upstream has the policy, so that the
	// template updates upstream's getting-started stack in place.
	LogicalID string
	Document  obj
}

// policyPart is one of the managed policies upstream splits the
// controller policy into, in upstream order.
type policyPart struct {
	name, file string
	statements func(m *facts.Minor, n model.Names, g model.IAMGates) []obj
}

var policyParts = []policyPart{
	{"NodeLifecycle", "node-lifecycle", nodeLifecycleStatements},
	{"IAMIntegration", "iam-integration", iamIntegrationStatements},
	{"EKSIntegration", "eks-integration", eksIntegrationStatements},
	{"Interruption", "interruption", interruptionStatements},
	{"ZonalShift", "zonal-shift", zonalShiftStatements},
	{"ResourceDiscovery", "resource-discovery", resourceDiscoveryStatements},
}

// ControllerPolicies returns the controller's managed policies for the
// minor: split as upstream splits them, and split in the same way where
// upstream's single policy would exceed the IAM size limit (the file names
// then say "split"). Gates add what the settings that are on need.
func ControllerPolicies(m *facts.Minor, n model.Names, g model.IAMGates) []ControllerPolicy {
	var split []ControllerPolicy
	var slugs []string
	var all []any
	for _, part := range policyParts {
		st := part.statements(m, n, g)
		if len(st) == 0 {
			continue
		}
		for _, s := range st {
			all = append(all, s)
		}
		split = append(split, ControllerPolicy{
			Part: part.name, File: model.ControllerPolicyFile(part.file),
			Name: n.ControllerPolicyName(part.name), LogicalID: part.name + "Policy", Document: Document(st),
		})
		slugs = append(slugs, part.file)
	}
	if m.IAM.Split {
		return split
	}
	single := ControllerPolicy{File: model.ControllerPolicyFile("all"), Name: n.ControllerPolicyName(""), LogicalID: "KarpenterControllerPolicy",
		Document: obj{"Version": Version, "Statement": all}}
	if CompactSize(single.Document) <= MaxPolicySize {
		return []ControllerPolicy{single}
	}
	// Upstream has no such policies: they get IDs of their own.
	for i := range split {
		split[i].File = model.ControllerPolicyFile("split-" + slugs[i])
		split[i].LogicalID = "KarpenterController" + split[i].Part + "Policy"
	}
	return split
}

// UpstreamControllerPolicy says whether a logical ID is one upstream's
// getting-started templates give a controller policy: the single
// KarpenterControllerPolicy of 0.32-1.8, or a part of the split of 1.9
// on.
func UpstreamControllerPolicy(logicalID string) bool {
	if logicalID == "KarpenterControllerPolicy" {
		return true
	}
	for _, part := range policyParts {
		if logicalID == part.name+"Policy" {
			return true
		}
	}
	return false
}

// Version is the policy language version of every document.
const Version = "2012-10-17"

// Document is a policy document of the statements.
func Document(statements []map[string]any) map[string]any {
	st := make([]any, len(statements))
	for i, s := range statements {
		st[i] = s
	}
	return obj{"Version": Version, "Statement": st}
}

// ec2ARNs builds ec2 ARNs for resource types; account is "" for AMIs and
// snapshots (owned by others) and "*" otherwise, as upstream scopes them.
func ec2ARNs(n model.Names, types []string) []any {
	out := make([]any, len(types))
	for i, t := range types {
		account := "*"
		if t == "image" || t == "snapshot" {
			account = ""
		}
		out[i] = n.ARN("ec2", n.Region, account, t+"/*")
	}
	return out
}

func strs(s ...string) []any {
	out := make([]any, len(s))
	for i, x := range s {
		out[i] = x
	}
	return out
}

// CompactSize is the length of v as JSON without whitespace, the measure
// IAM applies to policy documents.
func CompactSize(v any) int {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic(fmt.Sprintf("encoding a policy document: %v", err))
	}
	return b.Len() - 1 // the encoder's newline
}

func clusterTag(n model.Names) string { return "kubernetes.io/cluster/" + n.Cluster }

func nodeLifecycleStatements(m *facts.Minor, n model.Names, g model.IAMGates) []obj {
	ownedRes := obj{
		"StringEquals": obj{"aws:ResourceTag/" + clusterTag(n): "owned"},
		"StringLike":   obj{"aws:ResourceTag/karpenter.sh/nodepool": "*"},
	}
	out := []obj{
		{
			"Sid": "AllowScopedEC2InstanceAccessActions", "Effect": "Allow",
			"Resource": ec2ARNs(n, m.IAM.InstanceAccessResources),
			"Action":   strs("ec2:RunInstances", "ec2:CreateFleet"),
		},
		{
			"Sid": "AllowScopedEC2LaunchTemplateAccessActions", "Effect": "Allow",
			"Resource":  ec2ARNs(n, []string{"launch-template"})[0],
			"Action":    strs("ec2:RunInstances", "ec2:CreateFleet"),
			"Condition": ownedRes,
		},
		{
			"Sid": "AllowScopedEC2InstanceActionsWithTags", "Effect": "Allow",
			"Resource": ec2ARNs(n, m.IAM.TaggedCreateResources),
			"Action":   strs("ec2:RunInstances", "ec2:CreateFleet", "ec2:CreateLaunchTemplate"),
			"Condition": obj{
				"StringEquals": obj{
					"aws:RequestTag/" + clusterTag(n):     "owned",
					"aws:RequestTag/eks:eks-cluster-name": n.Cluster,
				},
				"StringLike": obj{"aws:RequestTag/karpenter.sh/nodepool": "*"},
			},
		},
		{
			"Sid": "AllowScopedResourceCreationTagging", "Effect": "Allow",
			"Resource": ec2ARNs(n, taggedAtCreation),
			"Action":   "ec2:CreateTags",
			"Condition": obj{
				"StringEquals": obj{
					"aws:RequestTag/" + clusterTag(n):     "owned",
					"aws:RequestTag/eks:eks-cluster-name": n.Cluster,
					"ec2:CreateAction":                    strs("RunInstances", "CreateFleet", "CreateLaunchTemplate"),
				},
				"StringLike": obj{"aws:RequestTag/karpenter.sh/nodepool": "*"},
			},
		},
		{
			"Sid": "AllowScopedResourceTagging", "Effect": "Allow",
			"Resource": ec2ARNs(n, []string{"instance"})[0],
			"Action":   "ec2:CreateTags",
			"Condition": obj{
				"StringEquals":              obj{"aws:ResourceTag/" + clusterTag(n): "owned"},
				"StringLike":                obj{"aws:ResourceTag/karpenter.sh/nodepool": "*"},
				"StringEqualsIfExists":      obj{"aws:RequestTag/eks:eks-cluster-name": n.Cluster},
				"ForAllValues:StringEquals": obj{"aws:TagKeys": strs("eks:eks-cluster-name", "karpenter.sh/nodeclaim", "Name")},
			},
		},
		{
			"Sid": "AllowScopedDeletion", "Effect": "Allow",
			"Resource":  ec2ARNs(n, []string{"instance", "launch-template"}),
			"Action":    strs("ec2:TerminateInstances", "ec2:DeleteLaunchTemplate"),
			"Condition": ownedRes,
		},
	}
	if m.IAM.RebootForRepair && g.RebootForRepair {
		// Node repair reboots one of the cluster's own nodes in place:
		// scoped like the termination above.
		out = append(out, obj{
			"Sid": "AllowScopedReboot", "Effect": "Allow",
			"Resource":  ec2ARNs(n, []string{"instance"})[0],
			"Action":    "ec2:RebootInstances",
			"Condition": ownedRes,
		})
	}
	return out
}

// taggedAtCreation are the resources CreateTags may tag while they are
// created; spot-instances-request is the one hand-kept policies forget.
var taggedAtCreation = []string{"fleet", "instance", "volume", "network-interface", "launch-template", "spot-instances-request"}

// nodeRoleResource is what the controller may pass: the node role, or
// the list of every node role when classes name roles of their own.
func nodeRoleResource(n model.Names) any {
	if len(n.ExtraNodeRoles) == 0 {
		return n.NodeRoleARN
	}
	var arns []string
	for _, r := range n.NodeRoles() {
		arns = append(arns, r.ARN)
	}
	return strs(arns...)
}

func instanceProfileARN(n model.Names) string {
	return n.ARN("iam", "", n.Account, "instance-profile/*")
}

func iamIntegrationStatements(m *facts.Minor, n model.Names, _ model.IAMGates) []obj {
	var passedTo any = model.EC2Service
	if m.IAM.PassedToServiceList {
		passedTo = strs(model.EC2Service, model.EC2ServiceChina)
	}
	return []obj{
		{
			"Sid": "AllowPassingInstanceRole", "Effect": "Allow",
			"Resource":  nodeRoleResource(n),
			"Action":    "iam:PassRole",
			"Condition": obj{"StringEquals": obj{"iam:PassedToService": passedTo}},
		},
		{
			"Sid": "AllowScopedInstanceProfileCreationActions", "Effect": "Allow",
			"Resource": instanceProfileARN(n),
			"Action":   strs("iam:CreateInstanceProfile"),
			"Condition": obj{
				"StringEquals": obj{
					"aws:RequestTag/" + clusterTag(n):              "owned",
					"aws:RequestTag/eks:eks-cluster-name":          n.Cluster,
					"aws:RequestTag/topology.kubernetes.io/region": n.Region,
				},
				"StringLike": obj{"aws:RequestTag/karpenter.k8s.aws/ec2nodeclass": "*"},
			},
		},
		{
			"Sid": "AllowScopedInstanceProfileTagActions", "Effect": "Allow",
			"Resource": instanceProfileARN(n),
			"Action":   strs("iam:TagInstanceProfile"),
			"Condition": obj{
				"StringEquals": obj{
					"aws:ResourceTag/" + clusterTag(n):              "owned",
					"aws:ResourceTag/topology.kubernetes.io/region": n.Region,
					"aws:RequestTag/" + clusterTag(n):               "owned",
					"aws:RequestTag/eks:eks-cluster-name":           n.Cluster,
					"aws:RequestTag/topology.kubernetes.io/region":  n.Region,
				},
				"StringLike": obj{
					"aws:ResourceTag/karpenter.k8s.aws/ec2nodeclass": "*",
					"aws:RequestTag/karpenter.k8s.aws/ec2nodeclass":  "*",
				},
			},
		},
		{
			"Sid": "AllowScopedInstanceProfileActions", "Effect": "Allow",
			"Resource": instanceProfileARN(n),
			"Action":   strs("iam:AddRoleToInstanceProfile", "iam:RemoveRoleFromInstanceProfile", "iam:DeleteInstanceProfile"),
			"Condition": obj{
				"StringEquals": obj{
					"aws:ResourceTag/" + clusterTag(n):              "owned",
					"aws:ResourceTag/topology.kubernetes.io/region": n.Region,
				},
				"StringLike": obj{"aws:ResourceTag/karpenter.k8s.aws/ec2nodeclass": "*"},
			},
		},
	}
}

func eksIntegrationStatements(_ *facts.Minor, n model.Names, _ model.IAMGates) []obj {
	return []obj{{
		"Sid": "AllowAPIServerEndpointDiscovery", "Effect": "Allow",
		"Resource": n.ClusterARN,
		"Action":   "eks:DescribeCluster",
	}}
}

func interruptionStatements(_ *facts.Minor, n model.Names, _ model.IAMGates) []obj {
	if n.QueueARN == "" {
		return nil
	}
	return []obj{{
		"Sid": "AllowInterruptionQueueActions", "Effect": "Allow",
		"Resource": n.QueueARN,
		"Action":   strs("sqs:DeleteMessage", "sqs:GetQueueUrl", "sqs:ReceiveMessage"),
	}}
}

func zonalShiftStatements(m *facts.Minor, n model.Names, _ model.IAMGates) []obj {
	st := obj{"Sid": "AllowZonalShiftStatusReadOnly", "Effect": "Allow", "Action": strs("arc-zonal-shift:GetManagedResource")}
	switch m.IAM.ZonalShift {
	case "condition":
		st["Resource"] = "*"
		st["Condition"] = obj{"StringEquals": obj{"arc-zonal-shift:ResourceIdentifier": n.ClusterARN}}
	default:
		return nil
	}
	return []obj{st}
}

func resourceDiscoveryStatements(m *facts.Minor, n model.Names, _ model.IAMGates) []obj {
	out := []obj{
		{
			"Sid": "AllowRegionalReadActions", "Effect": "Allow",
			"Resource":  "*",
			"Action":    strs(m.IAM.RegionalReadActions...),
			"Condition": obj{"StringEquals": obj{"aws:RequestedRegion": n.Region}},
		},
		{
			"Sid": "AllowSSMReadActions", "Effect": "Allow",
			"Resource": n.ARN("ssm", n.Region, "", "parameter/aws/service/*"),
			"Action":   "ssm:GetParameter",
		},
		{"Sid": "AllowPricingReadActions", "Effect": "Allow", "Resource": "*", "Action": "pricing:GetProducts"},
	}
	if m.IAM.ListInstanceProfiles {
		out = append(out, obj{"Sid": "AllowUnscopedInstanceProfileListAction", "Effect": "Allow", "Resource": "*", "Action": "iam:ListInstanceProfiles"})
	}
	out = append(out, obj{"Sid": "AllowInstanceProfileReadActions", "Effect": "Allow", "Resource": instanceProfileARN(n), "Action": "iam:GetInstanceProfile"})
	if m.IAM.UnscopedDescribeInstanceStatus {
		out = append(out, obj{"Sid": "AllowUnscopedEC2DescribeInstanceStatus", "Effect": "Allow", "Resource": "*", "Action": "ec2:DescribeInstanceStatus"})
	}
	return out
}
