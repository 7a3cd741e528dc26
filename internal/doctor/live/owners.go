package live

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/karpgen/karpgen/internal/util/lazyre"
)

// Owner kinds: what keeps a resource as its configuration says, and so
// undoes a change made behind its back. A plan changes a resource through
// its owner (docs/guide.md, "Owners").
const (
	// OwnerTerraform: a Terraform configuration; the next apply removes
	// tags it does not hold and puts sizes and deleted resources back.
	OwnerTerraform = "terraform"
	// OwnerEksctl: eksctl, through CloudFormation stacks of its own
	// (eksctl-<cluster>-*); changed with eksctl and its ClusterConfig.
	OwnerEksctl = "eksctl"
	// OwnerCloudFormation: a stack; changed by a stack update, previewed
	// with a change set.
	OwnerCloudFormation = "cloudformation"
	// OwnerArgoCD: an Argo CD Application; its self-heal undoes a change
	// to the cluster that Git does not hold.
	OwnerArgoCD = "argocd"
	// OwnerHelm: a Helm release.
	OwnerHelm = "helm"
	// OwnerEKS: made by EKS itself (the cluster security group); tags
	// added to it stay.
	OwnerEKS = "eks"
	// OwnerNobody: made by hand, or by nothing the capture shows.
	OwnerNobody = ""
)

// Owner is who owns a resource, with what says so.
type Owner struct {
	// Kind is one of the Owner kinds.
	Kind string `json:"kind"`
	// Name is the stack, the Application ("NAMESPACE/NAME" or NAME), the
	// release, or the Terraform module's address ("module.vpc").
	Name string `json:"name,omitempty"`
	// Logical is a stack's logical ID of the resource, when its tags say.
	Logical string `json:"logical,omitempty"`
	// Evidence says what the owner was read from.
	Evidence string `json:"evidence"`
}

// Tagged is an EC2 resource as the capture holds it.
type Tagged struct {
	ID, Name, Description string
	Tags                  map[string]string
}

// Tags AWS and eksctl put on what they make.
const (
	tagStackName   = "aws:cloudformation:stack-name"
	tagLogicalID   = "aws:cloudformation:logical-id"
	tagEksctlPrefx = "alpha.eksctl.io/"
	tagEksctlOld   = "eksctl.cluster.k8s.io/v1alpha1/cluster-name"
	tagEKSCluster  = "aws:eks:cluster-name"
)

// OwnerOfTags reads an AWS resource's owner from the tags its maker puts
// on it: eksctl's (alpha.eksctl.io/*, or a stack named eksctl-*) before
// CloudFormation's, EKS's own, else terraform when given (what the profile
// declares, for the tags Terraform does not write), else nobody.
func OwnerOfTags(tags map[string]string, terraform *Owner) Owner {
	stack, logical := tags[tagStackName], tags[tagLogicalID]
	eksctl := strings.HasPrefix(stack, "eksctl-") || tags[tagEksctlOld] != ""
	for k := range tags {
		eksctl = eksctl || strings.HasPrefix(k, tagEksctlPrefx)
	}
	switch {
	case eksctl:
		evidence := "its eksctl tags"
		if stack != "" {
			evidence = "its tag " + tagStackName + ": " + stack
		}
		return Owner{Kind: OwnerEksctl, Name: stack, Logical: logical, Evidence: evidence}
	case stack != "":
		return Owner{Kind: OwnerCloudFormation, Name: stack, Logical: logical, Evidence: "its tag " + tagStackName}
	case tags[tagEKSCluster] != "":
		return Owner{Kind: OwnerEKS, Evidence: "its tag " + tagEKSCluster}
	case terraform != nil:
		return *terraform
	}
	return Owner{Kind: OwnerNobody, Evidence: "no tag of CloudFormation, eksctl or EKS, and the profile names no Terraform module for it"}
}

// Object is a Kubernetes object's metadata as the capture holds it.
type Object struct {
	Kind, Namespace, Name string
	Labels, Annotations   map[string]string
}

// OwnerOfObject reads a Kubernetes object's owner: the Argo CD
// Application its tracking annotation names (or whose instance label it
// carries, Argo CD's label tracking), else the Helm release its
// annotations name, else nobody. A tracking id that names no Application
// is an error (TrackedApplication).
func OwnerOfObject(o Object) (Owner, error) {
	if id := o.Annotations["argocd.argoproj.io/tracking-id"]; id != "" {
		app, err := TrackedApplication(id)
		if err != nil {
			return Owner{}, err
		}
		return Owner{Kind: OwnerArgoCD, Name: app, Evidence: "its annotation argocd.argoproj.io/tracking-id"}, nil
	}
	release := o.Annotations["meta.helm.sh/release-name"]
	if app := o.Labels["app.kubernetes.io/instance"]; app != "" && o.Labels["app.kubernetes.io/managed-by"] != "Helm" && release == "" {
		if !kubeName().MatchString(app) {
			return Owner{}, fmt.Errorf("label app.kubernetes.io/instance %s names no Argo CD Application", strconv.Quote(app))
		}
		return Owner{Kind: OwnerArgoCD, Name: app, Evidence: "its label app.kubernetes.io/instance (Argo CD's label tracking)"}, nil
	}
	if release != "" {
		if len(release) > 53 || !kubeName().MatchString(release) {
			return Owner{}, fmt.Errorf("annotation meta.helm.sh/release-name %s is no Helm release name", strconv.Quote(release))
		}
		return Owner{Kind: OwnerHelm, Name: release, Evidence: "its annotation meta.helm.sh/release-name"}, nil
	}
	return Owner{Kind: OwnerNobody, Evidence: "no Argo CD tracking and no Helm release"}, nil
}

// SecurityGroupsOf are the security groups a managed node group's nodes
// carry: its launch template's when it has one that names any, else the
// cluster security group EKS gives them. ok is false when the capture
// does not say.
func (c *Cluster) SecurityGroupsOf(g NodeGroup) (groups []string, from string, ok bool) {
	switch {
	case g.LaunchTemplate != nil && len(g.LaunchTemplate.SecurityGroups) > 0:
		return g.LaunchTemplate.SecurityGroups, "launch template " + g.LaunchTemplate.ID, true
	case g.LaunchTemplate != nil && !g.LaunchTemplate.Read:
		return nil, "", false
	case c.ClusterSecurityGroup != "":
		return []string{c.ClusterSecurityGroup}, "the cluster security group", true
	}
	return nil, "", false
}

// SecurityGroup is a captured security group by ID.
func (c *Cluster) SecurityGroup(id string) (Tagged, bool) {
	if c == nil {
		return Tagged{}, false
	}
	sg, ok := c.SecurityGroups[id]
	return sg, ok
}

// trackingID is Argo CD's tracking annotation: the Application (its name,
// or NAMESPACE_NAME for one outside Argo CD's own namespace), then the
// object's group/kind and namespace/name.
var trackingID = lazyre.New(`^(?:([a-z0-9](?:[-a-z0-9]{0,61}[a-z0-9])?)_)?([a-z0-9](?:[-a-z0-9.]{0,251}[a-z0-9])?):[A-Za-z0-9.-]*/[A-Za-z0-9]+:[a-z0-9.-]*/[a-z0-9.-]+$`)

// kubeName is a Kubernetes object name (a DNS subdomain), which Argo CD
// Applications and Helm releases are.
var kubeName = lazyre.New(`^[a-z0-9](?:[-a-z0-9.]{0,251}[a-z0-9])?$`)

// TrackedApplication is the Application a tracking id names, as the
// argocd command line takes it: NAME, or NAMESPACE/NAME. Anything else
// (a line break, a space, a quote) names no Application and is refused,
// so that no captured text reaches a runbook's command as it is.
func TrackedApplication(id string) (string, error) {
	m := trackingID().FindStringSubmatch(id)
	if m == nil {
		return "", fmt.Errorf("%s is not an Argo CD tracking id (APPLICATION:GROUP/KIND:NAMESPACE/NAME, the Application a Kubernetes name or NAMESPACE_NAME)", strconv.Quote(id))
	}
	if m[1] != "" {
		return m[1] + "/" + m[2], nil
	}
	return m[2], nil
}
