package guardrails

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/karpgen/karpgen/internal/facts"
	"github.com/karpgen/karpgen/internal/facts/instancetypes"
	"github.com/karpgen/karpgen/internal/iameval"
	"github.com/karpgen/karpgen/internal/model"
	"github.com/karpgen/karpgen/internal/profile"
)

// Request is one call the controller makes, and the part of the profile
// it comes from.
type Request struct {
	iameval.Request
	// Path is the profile field the request follows from ("nodePools.app").
	Path string
	// Pool and Class name the pool and node class, "" for the
	// controller's own calls.
	Pool, Class string
	// Device is the block device a volume request is for, -1 otherwise.
	Device int
	// Types are the instance types a launch request stands for.
	Types []string
	// Service is who makes the request instead of the controller
	// (EventBridge delivering interruption events, the credential
	// exchange): only the resource control policies take part, beside
	// the resource's own policy, which the bundle writes. Purpose says
	// what the request is for.
	Service, Purpose string
}

// launchTags are the tags a launched instance and its volumes, network
// interfaces and spot request carry: the node class's own and those
// Karpenter sets at launch.
func launchTags(e *model.Env, pool, class string) map[string]string {
	n := e.Names
	tags := map[string]string{}
	for k, v := range e.Profile.NodeClasses[class].Tags {
		tags[k] = v
	}
	tags["kubernetes.io/cluster/"+n.Cluster] = "owned"
	tags["eks:eks-cluster-name"] = n.Cluster
	tags["karpenter.sh/nodepool"] = pool
	tags["karpenter.k8s.aws/ec2nodeclass"] = class
	return tags
}

func tagContext(tags map[string]string) map[string][]string {
	ctx := map[string][]string{}
	var keys []string
	for k, v := range tags {
		ctx["aws:RequestTag/"+k] = []string{v}
		keys = append(keys, k)
	}
	slices.Sort(keys)
	ctx["aws:TagKeys"] = keys
	return ctx
}

func with(base map[string][]string, kv ...string) map[string][]string {
	out := make(map[string][]string, len(base)+len(kv)/2)
	for k, v := range base {
		out[k] = v
	}
	for i := 0; i+1 < len(kv); i += 2 {
		out[kv[i]] = []string{kv[i+1]}
	}
	return out
}

// gib reads a volume size ("100Gi", "1Ti") in GiB, "" when it cannot.
func gib(size string) string {
	for suffix, factor := range map[string]int{"Gi": 1, "Ti": 1024, "G": 1, "T": 1000} {
		if n, ok := strings.CutSuffix(size, suffix); ok {
			if v, err := strconv.Atoi(n); err == nil {
				return strconv.Itoa(v * factor)
			}
		}
	}
	return ""
}

// Requests lists the calls made for an environment: the controller's
// (launches, tagging, terminations, instance profiles, reads, the
// queue), the credential exchange that gives it its role, and AWS's own
// deliveries to the queue. Every action the environment's controller
// policy grants has its requests (TestEveryGrantedActionIsRequested).
func Requests(e *model.Env) []Request {
	n := e.Names
	p := e.Profile
	var out []Request
	for _, pool := range slices.Sorted(maps.Keys(p.NodePools)) {
		out = append(out, launches(e, pool)...)
	}
	out = append(out, instanceProfiles(e)...)
	out = append(out, reads(e)...)
	region := map[string][]string{"aws:RequestedRegion": {n.Region}}
	own := func(action, resource string, ctx map[string][]string) {
		out = append(out, Request{Request: iameval.Request{Action: action, Resource: resource, Context: ctx}, Path: "karpenter", Device: -1})
	}
	for _, r := range n.NodeRoles() {
		own("iam:PassRole", r.ARN, map[string][]string{"iam:PassedToService": {model.EC2Service}})
	}
	own("eks:DescribeCluster", n.ClusterARN, region)
	if n.Queue != "" {
		for _, a := range []string{"sqs:ReceiveMessage", "sqs:DeleteMessage", "sqs:GetQueueUrl"} {
			own(a, n.QueueARN, region)
		}
	}
	// The keys every request of the controller carries: who calls, over
	// TLS, and the organization of the caller and of a resource of the
	// account.
	org := ""
	if g := p.Guardrails; g != nil {
		org = g.OrganizationID
	}
	for i := range out {
		ctx := with(out[i].Context, "aws:SecureTransport", "true", "aws:PrincipalArn", n.ControllerRoleARN,
			"aws:PrincipalAccount", n.Account, "aws:PrincipalType", "AssumedRole", "aws:PrincipalIsAWSService", "false")
		if org != "" {
			ctx["aws:PrincipalOrgID"] = []string{org}
		}
		if model.ARNAccount(out[i].Resource) == n.Account {
			ctx["aws:ResourceAccount"] = []string{n.Account}
			if org != "" {
				ctx["aws:ResourceOrgID"] = []string{org}
			}
		}
		out[i].Context = ctx
	}
	out = append(out, credentials(e, org)...)
	out = append(out, deliveries(e, org)...)
	return out
}

// launches are the requests of launching, tagging and terminating a
// pool's nodes: the instance once per instance type and market it may
// launch, with every resource the launch names under ec2:RunInstances,
// and under ec2:CreateFleet those of the resource types AWS authorizes
// it on (fleet, instance, image, launch template, subnet, volume,
// capacity reservation, placement group).
func launches(e *model.Env, pool string) []Request {
	n := e.Names
	np := e.Profile.NodePools[pool]
	class := np.NodeClass
	nc := e.Profile.NodeClasses[class]
	ec2 := func(resource string) string { return n.ARN("ec2", n.Region, n.Account, resource) }
	region := map[string][]string{"aws:RequestedRegion": {n.Region}}
	at := "nodePools." + pool
	launchTags := launchTags(e, pool, class)
	tags := with(tagContext(launchTags), "aws:RequestedRegion", n.Region)
	// What Karpenter made carries the tags it was made with.
	made := with(resourceTags(launchTags), "aws:RequestedRegion", n.Region)
	var out []Request
	add := func(action, resource string, ctx map[string][]string) {
		out = append(out, Request{Request: iameval.Request{Action: action, Resource: resource, Context: ctx}, Path: at, Pool: pool, Class: class, Device: -1})
	}
	metadata := with(tags, "ec2:MetadataHttpTokens", nc.MetadataOptions.HTTPTokens,
		"ec2:MetadataHttpPutResponseHopLimit", strconv.Itoa(nc.MetadataOptions.HTTPPutResponseHopLimit),
		"ec2:MetadataHttpEndpoint", nc.MetadataOptions.HTTPEndpoint)
	// The instance, once per instance type and market it may launch.
	for _, ct := range np.CapacityTypes {
		market := map[string]string{"spot": "spot", "on-demand": "on-demand", "reserved": "capacity-block"}[ct]
		for _, t := range instancetypes.Select(np, n.Region).Types {
			ctx := with(metadata, "ec2:InstanceType", t.Name, "ec2:InstanceMarketType", market)
			out = append(out, Request{Request: iameval.Request{Action: "ec2:RunInstances", Resource: ec2("instance/*"), Context: ctx},
				Path: at, Pool: pool, Class: class, Device: -1, Types: []string{t.Name}})
		}
		if ct == "spot" {
			add("ec2:RunInstances", ec2("spot-instances-request/*"), tags)
			add("ec2:CreateTags", ec2("spot-instances-request/*"), with(tags, "ec2:CreateAction", "CreateFleet"))
		}
	}
	add("ec2:CreateFleet", ec2("fleet/*"), tags)
	add("ec2:CreateFleet", ec2("instance/*"), metadata)
	add("ec2:CreateLaunchTemplate", ec2("launch-template/*"), tags)
	add("ec2:CreateTags", ec2("launch-template/*"), with(tags, "ec2:CreateAction", "CreateLaunchTemplate"))
	for _, kind := range []string{"fleet", "instance", "volume", "network-interface"} {
		add("ec2:CreateTags", ec2(kind+"/*"), with(tags, "ec2:CreateAction", "CreateFleet"))
	}
	add("ec2:RunInstances", ec2("network-interface/*"), tags)
	add("ec2:RunInstances", ec2("security-group/*"), region)
	add("ec2:RunInstances", n.ARN("ec2", n.Region, "", "snapshot/*"), region)
	for _, action := range []string{"ec2:RunInstances", "ec2:CreateFleet"} {
		add(action, ec2("launch-template/*"), made)
		add(action, ec2("subnet/*"), region)
		add(action, n.ARN("ec2", n.Region, "", "image/*"), region)
		if len(nc.CapacityReservationSelectorTerms) > 0 {
			add(action, ec2("capacity-reservation/*"), region)
		}
		if nc.PlacementGroupSelector != nil {
			add(action, ec2("placement-group/*"), region)
		}
	}
	for i, bd := range nc.BlockDevices {
		ctx := with(tags, "ec2:Encrypted", strconv.FormatBool(bd.Encrypted), "ec2:VolumeType", bd.VolumeType)
		if size := gib(bd.VolumeSize); size != "" {
			ctx["ec2:VolumeSize"] = []string{size}
		}
		for _, action := range []string{"ec2:RunInstances", "ec2:CreateFleet"} {
			out = append(out, Request{Request: iameval.Request{Action: action, Resource: ec2("volume/*"), Context: ctx},
				Path: fmt.Sprintf("nodeClasses.%s.blockDevices[%d]", class, i), Pool: pool, Class: class, Device: i})
		}
	}
	if len(nc.BlockDevices) == 0 {
		add("ec2:RunInstances", ec2("volume/*"), tags)
		add("ec2:CreateFleet", ec2("volume/*"), tags)
	}
	// Once the node registers, the instance is tagged with its name and
	// node claim; at the end of its life it is terminated, and launch
	// templates no longer used are deleted.
	named := map[string]string{"Name": "ip-10-0-0-1." + n.Region + ".compute.internal", "karpenter.sh/nodeclaim": pool + "-x7k2p", "eks:eks-cluster-name": n.Cluster}
	maps.Copy(made, with(tagContext(named), "aws:RequestedRegion", n.Region))
	add("ec2:CreateTags", ec2("instance/*"), made)
	gone := with(resourceTags(launchTags), "aws:RequestedRegion", n.Region)
	add("ec2:TerminateInstances", ec2("instance/*"), gone)
	add("ec2:DeleteLaunchTemplate", ec2("launch-template/*"), gone)
	return out
}

// resourceTags are the condition keys of a resource that carries tags.
func resourceTags(tags map[string]string) map[string][]string {
	ctx := map[string][]string{}
	for k, v := range tags {
		ctx["aws:ResourceTag/"+k] = []string{v}
	}
	return ctx
}

// instanceProfiles are the calls on the instance profiles Karpenter makes
// per node class (none for a class that names one of the account's).
func instanceProfiles(e *model.Env) []Request {
	n := e.Names
	p := e.Profile
	profileTags := map[string]string{
		"kubernetes.io/cluster/" + n.Cluster: "owned", "eks:eks-cluster-name": n.Cluster, "topology.kubernetes.io/region": n.Region,
	}
	var out []Request
	for _, class := range slices.Sorted(maps.Keys(p.NodeClasses)) {
		if p.NodeClasses[class].InstanceProfile != "" {
			continue // an instance profile of the account's: the controller makes none
		}
		tags := maps.Clone(profileTags)
		tags["karpenter.k8s.aws/ec2nodeclass"] = class
		ip := n.ARN("iam", "", n.Account, "instance-profile/"+n.Cluster+"_"+class)
		add := func(action string, ctx map[string][]string) {
			out = append(out, Request{Request: iameval.Request{Action: action, Resource: ip, Context: ctx}, Path: "nodeClasses." + class, Class: class, Device: -1})
		}
		add("iam:CreateInstanceProfile", tagContext(tags))
		// The profile Karpenter made carries the tags it was created with;
		// it tags it again when they are missing.
		own := resourceTags(tags)
		tagged := with(own)
		maps.Copy(tagged, tagContext(tags))
		add("iam:TagInstanceProfile", tagged)
		for _, a := range []string{"iam:AddRoleToInstanceProfile", "iam:GetInstanceProfile", "iam:RemoveRoleFromInstanceProfile", "iam:DeleteInstanceProfile"} {
			add(a, own)
		}
	}
	return out
}

// regionalReads are the controller's reads of the region's EC2 state, on
// "*", scoped by aws:RequestedRegion.
var regionalReads = []string{
	"ec2:DescribeAvailabilityZones", "ec2:DescribeCapacityReservations", "ec2:DescribeImages", "ec2:DescribeInstanceStatus",
	"ec2:DescribeInstanceTypeOfferings", "ec2:DescribeInstanceTypes", "ec2:DescribeInstances", "ec2:DescribeLaunchTemplates",
	"ec2:DescribePlacementGroups", "ec2:DescribeSecurityGroups", "ec2:DescribeSpotPriceHistory", "ec2:DescribeSubnets",
}

// reads are the controller's reads: the regional ones its minor grants,
// the Pricing API, AWS's public parameters for AMI aliases, the account's
// instance profiles and the cluster's zonal shifts.
func reads(e *model.Env) []Request {
	n := e.Names
	region := map[string][]string{"aws:RequestedRegion": {n.Region}}
	granted := Granted(e)
	var out []Request
	own := func(action, resource string, ctx map[string][]string) {
		out = append(out, Request{Request: iameval.Request{Action: action, Resource: resource, Context: ctx}, Path: "karpenter", Device: -1})
	}
	for _, a := range regionalReads {
		if granted[a] {
			own(a, "*", region)
		}
	}
	if at, ok := facts.PricingRegion(n.Region); ok {
		own("pricing:GetProducts", "*", map[string][]string{"aws:RequestedRegion": {at}})
	}
	own("ssm:GetParameter", n.ARN("ssm", n.Region, "", "parameter/aws/service/eks/optimized-ami/x/recommended/image_id"), region)
	if granted["iam:ListInstanceProfiles"] {
		own("iam:ListInstanceProfiles", "*", nil)
	}
	if granted["arc-zonal-shift:GetManagedResource"] {
		// Its resource types are load balancers only: an EKS cluster is
		// named by the condition key, on "*".
		own("arc-zonal-shift:GetManagedResource", "*", with(region, "arc-zonal-shift:ResourceIdentifier", n.ClusterARN))
	}
	return out
}

// Granted are the actions the environment's controller policy allows,
// as iameval reads the policy.
func Granted(e *model.Env) map[string]bool {
	out := map[string]bool{}
	if e.Facts == nil {
		return out
	}
	ids, err := identity(e)
	if err != nil {
		return out
	}
	for _, p := range ids {
		for _, st := range p.Statements {
			if st.Effect == "Allow" {
				for _, a := range st.Actions {
					out[a] = true
				}
			}
		}
	}
	return out
}

// credentials are the requests that give the controller its role: the
// web identity exchange of IRSA (the cluster's OIDC provider calls
// sts:AssumeRoleWithWebIdentity with the service account's token), or
// EKS Pod Identity's, which assumes the role and tags the session as
// pods.eks.amazonaws.com. Neither is a call of an IAM principal of the
// account: service control policies and the boundary take no part, the
// role's trust policy (the bundle's) admits it, and resource control
// policies may deny it.
func credentials(e *model.Env, org string) []Request {
	n := e.Names
	base := map[string][]string{"aws:RequestedRegion": {n.Region}, "aws:SecureTransport": {"true"}}
	if e.Profile.Karpenter.Auth == profile.AuthIRSA {
		if n.OIDCIssuerHost == "" {
			return nil
		}
		ctx := with(base, "aws:FederatedProvider", n.OIDCProviderARN,
			n.OIDCIssuerHost+":sub", "system:serviceaccount:"+n.Namespace+":"+n.ServiceAccount,
			n.OIDCIssuerHost+":aud", model.STSAudience)
		return []Request{{Request: iameval.Request{Action: "sts:AssumeRoleWithWebIdentity", Resource: n.ControllerRoleARN, Context: ctx},
			Path: "karpenter.auth", Device: -1, Service: "the cluster's OIDC provider", Purpose: "the controller's IRSA credentials"}}
	}
	ctx := with(base, "aws:PrincipalServiceName", model.PodIdentityPrincipal, "aws:PrincipalIsAWSService", "true",
		"aws:SourceAccount", n.Account, "aws:SourceArn", n.ClusterARN)
	if org != "" {
		ctx["aws:SourceOrgID"] = []string{org}
	}
	session := map[string]string{
		"eks-cluster-arn": n.ClusterARN, "eks-cluster-name": n.Cluster, "kubernetes-namespace": n.Namespace,
		"kubernetes-service-account": n.ServiceAccount, "kubernetes-pod-name": "karpenter-7d9f8c6b5-x2x4q", "kubernetes-pod-uid": "3f1c2b9e-0000-4000-8000-000000000000",
	}
	tag := maps.Clone(ctx)
	maps.Copy(tag, tagContext(session))
	var out []Request
	for _, r := range []iameval.Request{{Action: "sts:AssumeRole", Resource: n.ControllerRoleARN, Context: ctx}, {Action: "sts:TagSession", Resource: n.ControllerRoleARN, Context: tag}} {
		out = append(out, Request{Request: r, Path: "karpenter.auth", Device: -1, Service: model.PodIdentityPrincipal, Purpose: "the controller's Pod Identity credentials"})
	}
	return out
}

// deliveries are the requests AWS services make to the bundle's
// resources: EventBridge's delivery of interruption events to the queue,
// with the keys a service sends on behalf of a rule of the account
// (aws:SourceAccount, aws:SourceArn, and aws:SourceOrgID in an
// organization).
func deliveries(e *model.Env, org string) []Request {
	n := e.Names
	if n.Queue == "" || e.Facts == nil {
		return nil
	}
	var out []Request
	for _, r := range e.Facts.InterruptionRules {
		out = append(out, Request{Request: Delivery(e, n.ARN("events", n.Region, n.Account, "rule/"+n.RuleName(r)), org),
			Path: "karpenter.interruptionQueue", Device: -1, Service: model.EventsPrincipal, Purpose: "interruption events"})
	}
	return out
}

// Delivery is EventBridge's sqs:SendMessage of a rule's event to the
// environment's queue, with the keys the service sends: itself as the
// principal, the rule as the source, and the organization (org, when
// known). doctor asks the captured queue policy the same request.
func Delivery(e *model.Env, ruleARN, org string) iameval.Request {
	n := e.Names
	ctx := map[string][]string{
		"aws:RequestedRegion": {n.Region}, "aws:PrincipalServiceName": {model.EventsPrincipal}, "aws:PrincipalIsAWSService": {"true"},
		"aws:SourceAccount": {n.Account}, "aws:SourceArn": {ruleARN},
		"aws:SecureTransport": {"true"},
	}
	if org != "" {
		ctx["aws:SourceOrgID"] = []string{org}
	}
	return iameval.Request{Action: "sqs:SendMessage", Resource: n.QueueARN, Context: ctx}
}
