package model

import (
	"crypto/sha256"
	"encoding/hex"
	"maps"
	"slices"
	"strings"

	"github.com/karpgen/karpgen/internal/facts"
	"github.com/karpgen/karpgen/internal/profile"
)

// AWS name limits.
const (
	maxRoleName   = 64
	maxPolicyName = 128
	maxQueueName  = 80
	maxRuleName   = 64
)

// Names are every name and ARN that appears in more than one artifact of
// a bundle. Generators take them from here and nowhere else, so the Helm
// values, manifests and IAM always agree.
type Names struct {
	Cluster, Region, Partition, Account string
	// URLSuffix is the partition's service endpoint suffix.
	URLSuffix  string
	ClusterARN string

	NodeRole, NodeRoleARN string
	// NodeRoleExists: the node role is one the account already has
	// (karpenter.existingNodeRole); the bundle does not create it.
	NodeRoleExists bool
	// ExtraNodeRoles are karpenter.nodeRoles, the node roles beside
	// NodeRole that node classes name, by name.
	ExtraNodeRoles                    []NodeRole
	ControllerRole, ControllerRoleARN string
	// ControllerRoleExists: the controller role is one the account
	// already has (karpenter.existingControllerRole); the bundle attaches
	// its policies to it and does not create it.
	ControllerRoleExists bool
	// Association is the ID of the service account's Pod Identity
	// association the account already has
	// (karpenter.existingPodIdentityAssociation); the bundle creates none.
	// "" when the bundle creates it (or the controller uses IRSA).
	Association     string
	Queue, QueueARN string // empty without interruption handling
	// QueueExists: the interruption queue and its rules are the account's
	// (karpenter.existingInterruptionQueue); the bundle creates neither.
	QueueExists bool

	Namespace, ServiceAccount string
	// OIDCProviderARN and OIDCIssuerHost are set for IRSA.
	OIDCProviderARN, OIDCIssuerHost string
	// Stack is the CloudFormation stack that deploys the bundle's IAM in
	// every command karpgen prints: GettingStartedStack, unless the
	// profile adopts a queue or a node role (which upstream's
	// getting-started stack of that name holds, and which an update of it
	// to the bundle's template would delete); then a stack of its own.
	Stack string
	// OwnStack says the bundle deploys to a stack of its own name.
	OwnStack bool
	// EC2Principal is the service principal the node role trusts: EC2's
	// in the partition ("ec2.amazonaws.com.cn" in aws-cn).
	EC2Principal string
	// BoundaryARN is the permissions boundary of both roles, "" for none.
	BoundaryARN string
}

// NodeRole is one node role of an environment.
type NodeRole struct {
	Name, ARN string
	// Exists: the account has the role and its access entry; the bundle
	// creates neither.
	Exists bool
	// Policies are managed policy ARNs the bundle attaches beside the
	// version's node policies.
	Policies []string
}

// NodeRoles are every node role of the environment: NodeRole first, then
// ExtraNodeRoles.
func (n Names) NodeRoles() []NodeRole {
	return append([]NodeRole{{Name: n.NodeRole, ARN: n.NodeRoleARN, Exists: n.NodeRoleExists}}, n.ExtraNodeRoles...)
}

// HasNodeRole tells whether name is one of the environment's node roles.
func (n Names) HasNodeRole(name string) bool {
	return slices.ContainsFunc(n.NodeRoles(), func(r NodeRole) bool { return r.Name == name })
}

// Service principals that do not change with the partition: the values
// iam:PassedToService takes for EC2 (upstream lists both since 1.1), EKS
// Pod Identity's, and the senders of interruption events.
const (
	EC2Service           = "ec2.amazonaws.com"
	EC2ServiceChina      = "ec2.amazonaws.com.cn"
	PodIdentityPrincipal = "pods.eks.amazonaws.com"
	EventsPrincipal      = "events.amazonaws.com"
	SQSPrincipal         = "sqs.amazonaws.com"
	STSAudience          = "sts.amazonaws.com"
)

// maxStackName is CloudFormation's limit on a stack name.
const maxStackName = 128

// GettingStartedStack is the stack upstream's getting-started guide
// deploys its template to, Karpenter-<cluster>: the bundle's own stack
// when the profile adopts nothing it holds.
func GettingStartedStack(cluster string) string { return FitName("Karpenter-"+cluster, maxStackName) }

// namesOf derives the names of a profile.
func namesOf(p *profile.Profile) Names {
	c, k := p.Cluster, p.Karpenter
	n := Names{
		Cluster: c.Name, Region: c.Region, Partition: c.Partition, Account: c.AccountID,
		URLSuffix:      urlSuffix(c.Partition),
		Namespace:      k.Namespace,
		ServiceAccount: k.ServiceAccount,
	}
	n.ClusterARN = n.ARN("eks", c.Region, c.AccountID, "cluster/"+c.Name)
	n.EC2Principal = "ec2." + n.URLSuffix
	n.BoundaryARN = p.IAM.PermissionsBoundary
	n.Stack = GettingStartedStack(c.Name)
	if k.ExistingInterruptionQueue != "" || k.ExistingNodeRole != "" {
		// CloudFormation deletes every resource of a stack that an
		// update no longer names: the adopted queue, its rules and the
		// node role would go while the controller uses them.
		n.Stack, n.OwnStack = FitName("KarpenterBundle-"+c.Name, maxStackName), true
	}
	n.NodeRole = or(k.NodeRole, DefaultNodeRole(c.Name))
	if k.ExistingNodeRole != "" {
		n.NodeRole, n.NodeRoleExists = k.ExistingNodeRole, true
	}
	n.NodeRoleARN = n.ARN("iam", "", c.AccountID, "role/"+n.NodeRole)
	for _, name := range slices.Sorted(maps.Keys(k.NodeRoles)) {
		r := k.NodeRoles[name]
		n.ExtraNodeRoles = append(n.ExtraNodeRoles, NodeRole{
			Name: name, ARN: n.ARN("iam", "", c.AccountID, "role/"+name), Exists: r.Existing, Policies: r.Policies,
		})
	}
	n.ControllerRole = or(k.ControllerRole, FitName("KarpenterController-"+c.Name, maxRoleName))
	if k.ExistingControllerRole != "" {
		n.ControllerRole, n.ControllerRoleExists = k.ExistingControllerRole, true
	}
	n.ControllerRoleARN = n.ARN("iam", "", c.AccountID, "role/"+n.ControllerRole)
	if k.Auth == profile.AuthPodIdentity {
		n.Association = k.ExistingPodIdentityAssociation
	}
	if k.InterruptionQueue {
		n.Queue = or(k.QueueName, DefaultQueue(c.Name))
		if k.ExistingInterruptionQueue != "" {
			n.Queue, n.QueueExists = k.ExistingInterruptionQueue, true
		}
		n.QueueARN = n.ARN("sqs", c.Region, c.AccountID, n.Queue)
	}
	if c.OIDCIssuer != "" {
		n.OIDCIssuerHost = strings.TrimSuffix(strings.TrimPrefix(c.OIDCIssuer, "https://"), "/")
		n.OIDCProviderARN = n.ARN("iam", "", c.AccountID, "oidc-provider/"+n.OIDCIssuerHost)
	}
	return n
}

// DefaultNodeRole is the node role of a cluster whose profile names none
// (upstream's getting-started name, fitted to IAM's limit).
func DefaultNodeRole(cluster string) string {
	return FitName("KarpenterNodeRole-"+cluster, maxRoleName)
}

// DefaultQueue is the interruption queue of a cluster whose profile names
// none: the cluster's name, fitted to SQS's limit.
func DefaultQueue(cluster string) string { return FitName(cluster, maxQueueName) }

// ARN builds an ARN in the partition of the names.
func (n Names) ARN(service, region, account, resource string) string {
	return "arn:" + n.Partition + ":" + service + ":" + region + ":" + account + ":" + resource
}

// PolicyARN is the ARN of a customer managed policy of the account.
func (n Names) PolicyARN(name string) string { return n.ARN("iam", "", n.Account, "policy/"+name) }

// ManagedPolicyARN is the ARN of an AWS managed policy in the partition.
func (n Names) ManagedPolicyARN(name string) string {
	return "arn:" + n.Partition + ":iam::aws:policy/" + name
}

// ControllerPolicyName names a controller managed policy: part is "" for
// the single policy of early minors, else e.g. "NodeLifecycle".
//
// In a stack of its own (OwnStack) the names start KarpenterBundle: the
// getting-started stack beside it may hold policies of upstream's names
// (1.x names them as the bundle otherwise does), which a create of the
// same names would stop on.
func (n Names) ControllerPolicyName(part string) string {
	prefix := "KarpenterController"
	if n.OwnStack {
		prefix = "KarpenterBundleController"
	}
	return FitName(prefix+part+"Policy-"+n.Cluster, maxPolicyName)
}

// RuleName names an EventBridge rule of the interruption queue.
func (n Names) RuleName(r facts.Rule) string {
	return FitName("Karpenter"+strings.TrimSuffix(r.Name, "Rule")+"-"+n.Cluster, maxRuleName)
}

func urlSuffix(partition string) string {
	if partition == "aws-cn" {
		return "amazonaws.com.cn"
	}
	return "amazonaws.com"
}

// FitName returns name unchanged when it fits max characters; a longer
// name is cut and ends in 8 hex digits of its SHA-256, so that it stays
// unique and stable.
func FitName(name string, max int) string {
	if len(name) <= max {
		return name
	}
	sum := sha256.Sum256([]byte(name))
	return name[:max-9] + "-" + hex.EncodeToString(sum[:])[:8]
}

func or(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
