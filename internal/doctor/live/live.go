// Package live is what a capture (the folder `karpgen doctor
// --capture-script` writes) says an account and cluster hold, as the
// plans read it: the CloudFormation stacks the profile names and their
// resources, the authentication mode, the Helm releases, the Argo CD
// Application that deploys the controller now, the managed node groups.
// Plans given a capture plan from it; without one they say, once, what
// they assume. internal/doctor reads a folder into a Cluster.
package live

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/karpgen/karpgen/internal/iam/cfnpreview"
	"github.com/karpgen/karpgen/internal/model"
)

// Cluster is one environment's capture. Fields a capture did not hold
// (an older capture, a command that failed) are zero: Known says which
// were read.
type Cluster struct {
	// Dir is the folder as the user named it.
	Dir string
	// Name and ARN are the cluster's, as describe-cluster prints them;
	// "" when not captured.
	Name, ARN string
	// OIDCIssuer is the cluster's OIDC issuer URL, "" when not captured.
	OIDCIssuer string
	// ServiceAccountRole is the IRSA role the controller's service
	// account is annotated with (eks.amazonaws.com/role-arn), "" for none.
	ServiceAccountRole string
	// AuthMode is the cluster's authentication mode (CONFIG_MAP,
	// API_AND_CONFIG_MAP, API).
	AuthMode string
	// Kubernetes is the minor the cluster runs ("1.32"), "" when not
	// captured.
	Kubernetes string
	// Stacks are the stacks the profile names, by name.
	Stacks map[string]*Stack
	// HelmReleases are the cluster's Helm releases of Karpenter's charts.
	HelmReleases []HelmRelease
	// Controller is the Karpenter release the controller's Deployment
	// runs, from its image's tag ("1.2.8"); "" when not captured or not
	// an upstream image.
	Controller string
	// Tracking is the Argo CD Application whose tracking annotation is on
	// the controller's Deployment ("" for none).
	Tracking string
	// Application says whether the bundle's Argo CD Application exists.
	Application bool
	// NodeGroups are the managed node groups captured, by name.
	NodeGroups map[string]NodeGroup
	// Taken are names held in the account outside any captured stack, by
	// CloudFormation type and name, with who holds them.
	Taken map[string]map[string]string
	// Nodes are Karpenter's nodes, as their NodeClaims say.
	Nodes []Node
	// Holding are the PodDisruptionBudgets that allow no disruption now
	// ("namespace/name"): a drain of their pods' nodes waits on them.
	Holding []string
	// ClusterSecurityGroup is the security group EKS made for the
	// cluster, which nodes of a group without a launch template carry.
	ClusterSecurityGroup string
	// Subnets and SecurityGroups are the VPC's, by ID.
	Subnets, SecurityGroups map[string]Tagged
	// Deployments are the cluster's Deployments, by "namespace/name".
	Deployments map[string]Object
	// Associations are the cluster's EKS Pod Identity associations, with
	// the role each binds.
	Associations []Association
	// Prices are the region's prices the capture holds, nil for none.
	Prices *Prices
	// Terraform is the owner the profile declares for what Terraform
	// makes (cluster.owners.terraform), nil for none.
	Terraform *TerraformOwner
	// Known lists the parts that were read.
	Known []Part
}

// Association is an EKS Pod Identity association.
type Association struct {
	ID, Namespace, ServiceAccount, RoleARN string
}

// TerraformOwner names the Terraform modules that make the cluster's
// network and node groups (terraform-aws-vpc and terraform-aws-eks), as
// the profile declares them: tags do not say what Terraform made.
type TerraformOwner struct {
	// VPCModule and EKSModule are the module blocks' names ("vpc",
	// "eks"); Dir is the root module's folder, where terraform plan runs.
	VPCModule, EKSModule, Dir string
}

// Node is one of Karpenter's nodes: its NodeClaim's pool, class, image,
// type and zone.
type Node struct {
	Name, Pool, Class, Image, InstanceType, Zone string
}

// Stack is a CloudFormation stack as captured.
type Stack struct {
	Name   string
	Exists bool
	// Status is its StackStatus (UPDATE_COMPLETE, UPDATE_ROLLBACK_FAILED,
	// ...), when it exists.
	Status string
	// Template is its template as deployed (get-template, Original).
	Template   *cfnpreview.Template
	Resources  []cfnpreview.Live
	Parameters map[string]string
}

// HelmRelease is a release helm list prints.
type HelmRelease struct {
	Name, Namespace, Chart, AppVersion string
}

// NodeGroup is a managed node group as describe-nodegroup prints it.
type NodeGroup struct {
	// File is the capture's file it was read from.
	File                   string
	Name, Role             string
	Subnets, InstanceTypes []string
	Min, Max, Desired      int
	// Tags are the group's own tags (eksctl's name its stack).
	Tags map[string]string
	// Labels and Taints are what EKS puts on the group's nodes, the
	// taints' effects as Kubernetes spells them (NoSchedule).
	Labels map[string]string
	Taints []Taint
	// LaunchTemplate is the group's launch template, nil for none (its
	// nodes then carry the cluster security group).
	LaunchTemplate *LaunchTemplate
}

// Taint is a node group's taint.
type Taint struct{ Key, Value, Effect string }

// LaunchTemplate is a node group's launch template: the version the group
// uses, and the security groups that version gives its nodes (Read is
// false when the capture did not read the version).
type LaunchTemplate struct {
	ID, Name, Version string
	Read              bool
	SecurityGroups    []string
}

// NodesOf are Karpenter's nodes of a pool and a node class ("" for
// any).
func (c *Cluster) NodesOf(pool, class string) []Node {
	if c == nil {
		return nil
	}
	var out []Node
	for _, x := range c.Nodes {
		if (pool == "" || x.Pool == pool) && (class == "" || x.Class == class) {
			out = append(out, x)
		}
	}
	return out
}

// Distinct are the values of a field of nodes, each once, sorted, empty
// ones left out.
func Distinct(nodes []Node, field string) []string {
	var out []string
	for _, x := range nodes {
		v := map[string]string{"pool": x.Pool, "class": x.Class, "image": x.Image, "type": x.InstanceType, "zone": x.Zone}[field]
		if v != "" && !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	slices.Sort(out)
	return out
}

// NodeGroup is a managed node group the capture holds.
func (c *Cluster) NodeGroup(name string) (NodeGroup, bool) {
	if c == nil {
		return NodeGroup{}, false
	}
	g, ok := c.NodeGroups[name]
	return g, ok
}

// Release is the release of a chart in a namespace, if the capture
// holds it.
func (c *Cluster) Release(name, namespace string) (HelmRelease, bool) {
	if c == nil {
		return HelmRelease{}, false
	}
	for _, r := range c.HelmReleases {
		if r.Name == name && r.Namespace == namespace {
			return r, true
		}
	}
	return HelmRelease{}, false
}

// Preview is what deploying the bundle's template to the environment's
// stack does to what the stack holds now. ok is false when the capture
// does not hold the stack.
func (c *Cluster) Preview(e *model.Env, template []byte) (changes []cfnpreview.Change, ok bool, err error) {
	n := e.Names
	if c == nil {
		return nil, false, nil
	}
	st, found := c.Stacks[n.Stack]
	if !found || st.Exists && st.Template == nil {
		return nil, false, nil
	}
	next, err := cfnpreview.Parse(model.FileCloudFormation, template)
	if err != nil {
		return nil, false, err
	}
	var old *cfnpreview.Template
	if st.Exists {
		old = st.Template
	}
	env := cfnpreview.Env{Names: n, StackName: n.Stack, Parameters: st.Parameters}
	// Names held outside the stack: by the other captured stacks, and
	// in the account, unless the stack itself holds them.
	taken := cfnpreview.Taken{}
	hold := func(typ, name, who string) {
		if inStack(st, typ, name) {
			return
		}
		if taken[typ] == nil {
			taken[typ] = map[string]string{}
		}
		if _, ok := taken[typ][strings.ToLower(name)]; !ok {
			taken[typ][strings.ToLower(name)] = who
		}
	}
	for _, name := range slices.Sorted(maps.Keys(c.Stacks)) {
		other := c.Stacks[name]
		if name == n.Stack || !other.Exists {
			continue
		}
		for _, r := range other.Resources {
			hold(r.Type, cfnpreview.PhysicalName(r.Type, r.Physical), fmt.Sprintf("stack %s (its %s)", other.Name, r.Logical))
		}
	}
	for _, a := range c.Associations {
		hold("AWS::EKS::PodIdentityAssociation", a.Namespace+"/"+a.ServiceAccount, fmt.Sprintf("association %s (role %s)", a.ID, a.RoleARN))
	}
	for _, typ := range slices.Sorted(maps.Keys(c.Taken)) {
		for _, name := range slices.Sorted(maps.Keys(c.Taken[typ])) {
			hold(typ, name, c.Taken[typ][name])
		}
	}
	return cfnpreview.Compute(old, st.Resources, next, env, taken), true, nil
}

func inStack(st *Stack, typ, name string) bool {
	for _, r := range st.Resources {
		if r.Type == typ && strings.EqualFold(cfnpreview.PhysicalName(typ, r.Physical), name) {
			return true
		}
	}
	return false
}

// Objects are the Kubernetes objects of a capture that Karpenter's
// disruption controller decides on, each as kubectl printed it, and the
// time they were read at.
type Objects struct {
	Time                                      time.Time
	Nodes, NodeClaims, Pods, PDBs, DaemonSets []json.RawMessage
}
