package guardrails

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/karpgen/karpgen/internal/iameval"
	"github.com/karpgen/karpgen/internal/instancetypes"
	"github.com/karpgen/karpgen/internal/model"
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
	// Service is the AWS service that makes the request instead of the
	// controller (EventBridge delivering interruption events): only the
	// resource control policies take part.
	Service string
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

// Requests lists the calls the controller makes for an environment.
func Requests(e *model.Env) []Request {
	n := e.Names
	p := e.Profile
	ec2 := func(resource string) string { return n.ARN("ec2", n.Region, n.Account, resource) }
	region := map[string][]string{"aws:RequestedRegion": {n.Region}}
	var out []Request
	for _, pool := range slices.Sorted(maps.Keys(p.NodePools)) {
		np := p.NodePools[pool]
		class := np.NodeClass
		nc := p.NodeClasses[class]
		at := "nodePools." + pool
		tags := with(tagContext(launchTags(e, pool, class)), "aws:RequestedRegion", n.Region)
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
			}
		}
		add("ec2:CreateFleet", ec2("fleet/*"), tags)
		add("ec2:CreateLaunchTemplate", ec2("launch-template/*"), tags)
		add("ec2:CreateTags", ec2("instance/*"), with(tags, "ec2:CreateAction", "CreateFleet"))
		add("ec2:RunInstances", ec2("network-interface/*"), tags)
		add("ec2:RunInstances", ec2("subnet/*"), region)
		add("ec2:RunInstances", ec2("security-group/*"), region)
		add("ec2:RunInstances", n.ARN("ec2", n.Region, "", "image/*"), region)
		for i, bd := range nc.BlockDevices {
			ctx := with(tags, "ec2:Encrypted", strconv.FormatBool(bd.Encrypted), "ec2:VolumeType", bd.VolumeType)
			if size := gib(bd.VolumeSize); size != "" {
				ctx["ec2:VolumeSize"] = []string{size}
			}
			out = append(out, Request{Request: iameval.Request{Action: "ec2:RunInstances", Resource: ec2("volume/*"), Context: ctx},
				Path: fmt.Sprintf("nodeClasses.%s.blockDevices[%d]", class, i), Pool: pool, Class: class, Device: i})
		}
		if len(nc.BlockDevices) == 0 {
			add("ec2:RunInstances", ec2("volume/*"), tags)
		}
	}
	// The controller's own calls.
	own := func(action, resource string, ctx map[string][]string) {
		out = append(out, Request{Request: iameval.Request{Action: action, Resource: resource, Context: ctx}, Path: "karpenter", Device: -1})
	}
	own("iam:PassRole", n.NodeRoleARN, map[string][]string{"iam:PassedToService": {model.EC2Service}})
	own("eks:DescribeCluster", n.ClusterARN, region)
	own("ec2:DescribeInstanceTypes", "*", region)
	own("ec2:DescribeSubnets", "*", region)
	own("pricing:GetProducts", "*", map[string][]string{"aws:RequestedRegion": {pricingRegion(n.Partition)}})
	// The AMI aliases resolve through AWS's public parameters.
	own("ssm:GetParameter", n.ARN("ssm", n.Region, "", "parameter/aws/service/eks/optimized-ami/x/recommended/image_id"), region)
	profileTags := map[string][]string{
		"aws:RequestTag/kubernetes.io/cluster/" + n.Cluster: {"owned"}, "aws:RequestTag/eks:eks-cluster-name": {n.Cluster},
		"aws:RequestTag/topology.kubernetes.io/region": {n.Region},
	}
	for _, class := range slices.Sorted(maps.Keys(p.NodeClasses)) {
		if p.NodeClasses[class].InstanceProfile != "" {
			continue // an instance profile of the account's: the controller makes none
		}
		ctx := with(profileTags, "aws:RequestTag/karpenter.k8s.aws/ec2nodeclass", class)
		ctx["aws:TagKeys"] = []string{"eks:eks-cluster-name", "karpenter.k8s.aws/ec2nodeclass", "kubernetes.io/cluster/" + n.Cluster, "topology.kubernetes.io/region"}
		ip := n.ARN("iam", "", n.Account, "instance-profile/"+n.Cluster+"_"+class)
		out = append(out, Request{Request: iameval.Request{Action: "iam:CreateInstanceProfile", Resource: ip, Context: ctx}, Path: "nodeClasses." + class, Class: class, Device: -1})
		// The profile Karpenter made carries the tags it was created with.
		own := map[string][]string{
			"aws:ResourceTag/kubernetes.io/cluster/" + n.Cluster: {"owned"}, "aws:ResourceTag/eks:eks-cluster-name": {n.Cluster},
			"aws:ResourceTag/topology.kubernetes.io/region": {n.Region}, "aws:ResourceTag/karpenter.k8s.aws/ec2nodeclass": {class},
		}
		for _, a := range []string{"iam:AddRoleToInstanceProfile", "iam:GetInstanceProfile"} {
			out = append(out, Request{Request: iameval.Request{Action: a, Resource: ip, Context: own}, Path: "nodeClasses." + class, Class: class, Device: -1})
		}
	}
	if n.Queue != "" {
		for _, a := range []string{"sqs:ReceiveMessage", "sqs:DeleteMessage", "sqs:GetQueueUrl"} {
			own(a, n.QueueARN, region)
		}
		// EventBridge delivers the interruption events to the queue.
		out = append(out, Request{Request: iameval.Request{Action: "sqs:SendMessage", Resource: n.QueueARN, Context: map[string][]string{
			"aws:RequestedRegion": {n.Region}, "aws:PrincipalServiceName": {model.EventsPrincipal}, "aws:PrincipalIsAWSService": {"true"},
			"aws:SourceAccount": {n.Account}, "aws:SecureTransport": {"true"},
		}}, Path: "karpenter.interruptionQueue", Device: -1, Service: model.EventsPrincipal})
	}
	// The keys every request of the controller carries: who calls, and
	// over TLS.
	for i := range out {
		if out[i].Service != "" {
			continue
		}
		ctx := out[i].Context
		if ctx == nil {
			ctx = map[string][]string{}
		}
		ctx = with(ctx, "aws:SecureTransport", "true", "aws:PrincipalArn", n.ControllerRoleARN,
			"aws:PrincipalAccount", n.Account, "aws:PrincipalType", "AssumedRole")
		if g := p.Guardrails; g != nil && g.OrganizationID != "" {
			ctx["aws:PrincipalOrgID"] = []string{g.OrganizationID}
		}
		out[i].Context = ctx
	}
	return out
}

// pricingRegion is where the Pricing API is called from.
func pricingRegion(partition string) string {
	switch partition {
	case "aws-cn":
		return "cn-northwest-1"
	case "aws-us-gov":
		return "us-gov-west-1"
	}
	return "us-east-1"
}
