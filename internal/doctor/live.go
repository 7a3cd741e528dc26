package doctor

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strconv"
	"strings"

	"github.com/karpgen/karpgen/internal/doctor/live"
	"github.com/karpgen/karpgen/internal/iam/cfnpreview"
	"github.com/karpgen/karpgen/internal/model"
	"github.com/karpgen/karpgen/internal/util/lazyre"
)

// stacksOf are the CloudFormation stacks the capture reads: the one the
// bundle deploys to and, when that is the bundle's own, the
// getting-started stack whose resources the profile adopts.
func stacksOf(n model.Names) []string {
	out := []string{n.Stack}
	if gs := model.GettingStartedStack(n.Cluster); gs != n.Stack {
		out = append(out, gs)
	}
	return out
}

// StackFiles are the capture's files of one stack. The prefixes differ
// so that no stack's name makes another's file.
func StackFiles(stack string) (describe, resources, template string) {
	return "cfn-stack-" + stack + ".json", "cfn-resources-" + stack + ".json", "cfn-template-" + stack + ".json"
}

// Identity is what a capture says of its cluster with no environment to
// hold it to: the cluster's name, ARN and Kubernetes minor, its Pod
// Identity associations, the IRSA role the controller's service account
// names, its managed node groups, and the getting-started stack
// (Karpenter-<cluster>) when it exists, for an import that adopts what
// the cluster has. A file that is not what the capture writes is an
// error.
func Identity(s *State) (*live.Cluster, error) {
	c := &live.Cluster{Dir: s.Name}
	var cl eksCluster
	if ok, err := readKnown(s, live.FileEKSCluster, &cl); err != nil {
		return nil, err
	} else if ok {
		c.Name, c.ARN, c.Kubernetes, c.OIDCIssuer = cl.Cluster.Name, cl.Cluster.Arn, cl.Cluster.Version, cl.Cluster.Identity.OIDC.Issuer
	}
	if err := readAssociations(s, c); err != nil {
		return nil, err
	}
	c.NodeGroups = map[string]live.NodeGroup{}
	if err := readNodeGroups(s, c); err != nil {
		return nil, err
	}
	if c.Name != "" {
		// The getting-started guide's stack: what it holds, the import
		// keeps in it rather than adopt.
		gs := model.GettingStartedStack(c.Name)
		st, err := readStack(s, gs)
		if err != nil {
			return nil, err
		}
		if st != nil && st.Exists {
			c.Stacks = map[string]*live.Stack{gs: st}
		}
	}
	var sa struct {
		Metadata struct {
			Annotations map[string]string `json:"annotations"`
		} `json:"metadata"`
	}
	if ok, err := readKnown(s, live.FileKarpenterSA, &sa); err != nil {
		return nil, err
	} else if ok {
		c.ServiceAccountRole = sa.Metadata.Annotations["eks.amazonaws.com/role-arn"]
	}
	return c, nil
}

// Live reads what the capture says the account and cluster hold, for
// the plans. A file the capture did not write, or whose command failed,
// leaves its part unknown; a file that is not what the capture writes is
// an error, as for doctor's checks.
func Live(e *model.Env, s *State) (*live.Cluster, error) {
	n := e.Names
	c := &live.Cluster{Dir: s.Name, Stacks: map[string]*live.Stack{}, NodeGroups: map[string]live.NodeGroup{}, Taken: map[string]map[string]string{}}
	var cl eksCluster
	if ok, err := readKnown(s, live.FileEKSCluster, &cl); err != nil {
		return nil, err
	} else if ok {
		// Another environment's capture (another cluster, account,
		// region or partition) would plan this one from what another
		// holds: its subnets tagged with this one's discovery tag.
		if cl.Cluster.Name != n.Cluster || cl.Cluster.Arn != "" && cl.Cluster.Arn != n.ClusterARN {
			return nil, &StateError{File: live.FileEKSCluster, Reason: fmt.Sprintf("the capture is of cluster %s (%s), not of %s's cluster %s (%s): capture this environment's (karpgen doctor %s --capture-script)",
				strconv.Quote(cl.Cluster.Name), strconv.Quote(cl.Cluster.Arn), e.Name, n.Cluster, n.ClusterARN, e.Name)}
		}
		if cl.Cluster.AccessConfig.AuthenticationMode != "" {
			c.AuthMode = cl.Cluster.AccessConfig.AuthenticationMode
			c.Know(live.PartAuth)
		}
		c.Name, c.ARN, c.Kubernetes = cl.Cluster.Name, cl.Cluster.Arn, cl.Cluster.Version
		c.ClusterSecurityGroup = cl.Cluster.ResourcesVpcConfig.ClusterSecurityGroupID
	}
	if p := e.Profile.Cluster.Owners.Terraform; p != nil {
		c.Terraform = &live.TerraformOwner{VPCModule: p.VPCModule, EKSModule: p.EKSModule, Dir: p.Dir}
	}
	if err := readNetwork(s, c); err != nil {
		return nil, err
	}
	if err := readWorkloads(s, c); err != nil {
		return nil, err
	}
	if err := readAssociations(s, c); err != nil {
		return nil, err
	}
	prices, err := Prices(s, n.Region)
	if err != nil {
		return nil, err
	}
	if prices != nil {
		c.Prices = prices
		c.Know(live.PartPrices)
	}
	for _, name := range stacksOf(n) {
		st, err := readStack(s, name)
		if err != nil {
			return nil, err
		}
		if st != nil {
			c.Stacks[name] = st
		}
	}
	var releases []struct {
		Name       string `json:"name"`
		Namespace  string `json:"namespace"`
		Chart      string `json:"chart"`
		AppVersion string `json:"app_version"`
	}
	if ok, err := readKnown(s, live.FileHelmReleases, &releases); err != nil {
		return nil, err
	} else if ok {
		c.Know(live.PartHelm)
		for _, r := range releases {
			if strings.HasPrefix(r.Chart, "karpenter") {
				c.HelmReleases = append(c.HelmReleases, live.HelmRelease{Name: r.Name, Namespace: r.Namespace, Chart: r.Chart, AppVersion: r.AppVersion})
			}
		}
	}
	var d struct {
		Metadata struct {
			Annotations map[string]string `json:"annotations"`
		} `json:"metadata"`
		Spec struct {
			Template struct {
				Spec struct {
					Containers []struct {
						Name  string `json:"name"`
						Image string `json:"image"`
					} `json:"containers"`
				} `json:"spec"`
			} `json:"template"`
		} `json:"spec"`
	}
	if ok, err := readKnown(s, live.FileKarpenterDeployment, &d); err != nil {
		return nil, err
	} else if ok {
		c.Know(live.PartTracking)
		for _, ct := range d.Spec.Template.Spec.Containers {
			if ct.Name == "controller" {
				c.Controller = controllerRelease(ct.Image)
			}
		}
		if id := d.Metadata.Annotations["argocd.argoproj.io/tracking-id"]; id != "" {
			app, err := live.TrackedApplication(id)
			if err != nil {
				return nil, &StateError{File: live.FileKarpenterDeployment, Path: "metadata.annotations.argocd.argoproj.io/tracking-id", Reason: err.Error()}
			}
			c.Tracking = app
		}
	}
	if e.Application != nil {
		var app map[string]any
		found, failed, err := s.read(live.FileArgoCDApplication, &app)
		switch {
		case err != nil:
			return nil, err
		case found && failed == nil:
			c.Application = true
			c.Know(live.PartApplication)
		case found && failed.Code == "NotFound":
			c.Know(live.PartApplication)
		}
	}
	if err := readNodeGroups(s, c); err != nil {
		return nil, err
	}
	if err := readNodes(s, c); err != nil {
		return nil, err
	}
	// Names held outside the stacks, which a resource the bundle creates
	// cannot take.
	taken := func(typ, name, file, who string) error {
		var v map[string]any
		ok, err := readKnown(s, file, &v)
		if ok && name != "" {
			if c.Taken[typ] == nil {
				c.Taken[typ] = map[string]string{}
			}
			c.Taken[typ][name] = who
		}
		return err
	}
	for _, r := range n.NodeRoles() {
		if err := taken("AWS::IAM::Role", r.Name, nodeRoleFilesOf(n, r.Name).role, "role "+r.Name+" of the account"); err != nil {
			return nil, err
		}
	}
	if err := taken("AWS::IAM::Role", n.ControllerRole, "iam-controller-role.json", "role "+n.ControllerRole+" of the account"); err != nil {
		return nil, err
	}
	if n.Queue != "" {
		if err := taken("AWS::SQS::Queue", n.Queue, "sqs-queue.json", "queue "+n.Queue+" of the account"); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// readKnown reads a file that, when captured and its command did not
// fail, is known.
func readKnown(s *State, file string, v any) (bool, error) {
	found, failed, err := s.read(file, v)
	return found && failed == nil && err == nil, err
}

// readStack reads a stack's three files: nil when the capture holds
// none, a stack that does not exist when describe-stacks says so.
func readStack(s *State, name string) (*live.Stack, error) {
	describe, resources, template := StackFiles(name)
	var ds struct {
		Stacks []struct {
			StackName   string `json:"StackName"`
			StackStatus string `json:"StackStatus"`
			Parameters  []struct {
				Key   string `json:"ParameterKey"`
				Value string `json:"ParameterValue"`
			} `json:"Parameters"`
		} `json:"Stacks"`
	}
	found, failed, err := s.read(describe, &ds)
	switch {
	case err != nil:
		return nil, err
	case !found:
		return nil, nil
	case failed != nil && failed.Code == "ValidationError" && strings.Contains(failed.Message, "does not exist"):
		return &live.Stack{Name: name}, nil
	case failed != nil || len(ds.Stacks) == 0:
		return nil, nil
	}
	st := &live.Stack{Name: name, Exists: true, Status: ds.Stacks[0].StackStatus, Parameters: map[string]string{}}
	for _, p := range ds.Stacks[0].Parameters {
		st.Parameters[p.Key] = p.Value
	}
	var rs struct {
		StackResources []struct {
			Logical  string `json:"LogicalResourceId"`
			Physical string `json:"PhysicalResourceId"`
			Type     string `json:"ResourceType"`
			Status   string `json:"ResourceStatus"`
		} `json:"StackResources"`
	}
	if ok, err := readKnown(s, resources, &rs); err != nil {
		return nil, err
	} else if !ok {
		return nil, nil
	}
	for _, r := range rs.StackResources {
		if r.Status != "DELETE_COMPLETE" {
			st.Resources = append(st.Resources, cfnpreview.Live{Logical: r.Logical, Physical: r.Physical, Type: r.Type})
		}
	}
	var gt struct {
		TemplateBody json.RawMessage `json:"TemplateBody"`
	}
	if ok, err := readKnown(s, template, &gt); err != nil {
		return nil, err
	} else if !ok {
		// Its resources hold names; without its template, what a deploy
		// does to it is not known.
		return st, nil
	}
	body := []byte(gt.TemplateBody)
	var text string
	if json.Unmarshal(gt.TemplateBody, &text) == nil {
		body = []byte(text)
	}
	t, err := cfnpreview.Parse("TemplateBody", body)
	if err != nil {
		return nil, &StateError{File: template, Reason: err.Error()}
	}
	st.Template = t
	return st, nil
}

// taintEffects are EKS's spellings of the taint effects, as describe-nodegroup
// prints them, and Kubernetes's.
var taintEffects = map[string]string{"NO_SCHEDULE": "NoSchedule", "NO_EXECUTE": "NoExecute", "PREFER_NO_SCHEDULE": "PreferNoSchedule"}

// readNodeGroups reads every eks-nodegroup-*.json of the folder.
func readNodeGroups(s *State, c *live.Cluster) error {
	names, err := fs.Glob(s.fsys, live.PerItem(live.PrefixNodeGroup, "*"))
	if err != nil {
		return err
	}
	slices.Sort(names)
	for _, file := range names {
		var g struct {
			Nodegroup struct {
				Name          string   `json:"nodegroupName"`
				Role          string   `json:"nodeRole"`
				Subnets       []string `json:"subnets"`
				InstanceTypes []string `json:"instanceTypes"`
				Scaling       struct {
					Min     int `json:"minSize"`
					Max     int `json:"maxSize"`
					Desired int `json:"desiredSize"`
				} `json:"scalingConfig"`
				Tags   map[string]string `json:"tags"`
				Labels map[string]string `json:"labels"`
				Taints []struct {
					Key    string `json:"key"`
					Value  string `json:"value"`
					Effect string `json:"effect"`
				} `json:"taints"`
				LaunchTemplate *struct {
					ID      string `json:"id"`
					Name    string `json:"name"`
					Version string `json:"version"`
				} `json:"launchTemplate"`
			} `json:"nodegroup"`
		}
		ok, err := readKnown(s, file, &g)
		var se *StateError
		if errors.As(err, &se) {
			return err
		}
		if !ok || g.Nodegroup.Name == "" {
			continue
		}
		ng := g.Nodegroup
		group := live.NodeGroup{File: file, Name: ng.Name, Role: ng.Role, Subnets: ng.Subnets, InstanceTypes: ng.InstanceTypes,
			Min: ng.Scaling.Min, Max: ng.Scaling.Max, Desired: ng.Scaling.Desired, Tags: ng.Tags, Labels: ng.Labels}
		for _, t := range ng.Taints {
			effect, ok := taintEffects[t.Effect]
			if !ok {
				return &StateError{File: file, Reason: fmt.Sprintf("nodegroup.taints: effect %s is none of EKS's (NO_SCHEDULE, NO_EXECUTE, PREFER_NO_SCHEDULE)", strconv.Quote(t.Effect))}
			}
			group.Taints = append(group.Taints, live.Taint{Key: t.Key, Value: t.Value, Effect: effect})
		}
		if lt := ng.LaunchTemplate; lt != nil {
			group.LaunchTemplate = &live.LaunchTemplate{ID: lt.ID, Name: lt.Name, Version: lt.Version}
			if err := readLaunchTemplate(s, strings.TrimSuffix(strings.TrimPrefix(file, live.PrefixNodeGroup), ".json"), group.LaunchTemplate); err != nil {
				return err
			}
		}
		c.NodeGroups[ng.Name] = group
		c.Know(live.PartNodeGroups)
	}
	return nil
}

// readNodes reads Karpenter's NodeClaims and the budgets that hold
// drains.
func readNodes(s *State, c *live.Cluster) error {
	var claims struct {
		Items []struct {
			Metadata struct {
				Name   string            `json:"name"`
				Labels map[string]string `json:"labels"`
			} `json:"metadata"`
			Spec struct {
				NodeClassRef struct {
					Name string `json:"name"`
				} `json:"nodeClassRef"`
			} `json:"spec"`
			Status struct {
				ImageID string `json:"imageID"`
			} `json:"status"`
		} `json:"items"`
	}
	if ok, err := readKnown(s, live.FileNodeClaims, &claims); err != nil {
		return err
	} else if ok {
		c.Know(live.PartNodes)
		for _, x := range claims.Items {
			l := x.Metadata.Labels
			c.Nodes = append(c.Nodes, live.Node{Name: x.Metadata.Name, Pool: l["karpenter.sh/nodepool"], Class: x.Spec.NodeClassRef.Name,
				Image: x.Status.ImageID, InstanceType: l["node.kubernetes.io/instance-type"], Zone: l["topology.kubernetes.io/zone"]})
		}
	}
	var pdbs struct {
		Items []struct {
			Metadata struct {
				Name      string `json:"name"`
				Namespace string `json:"namespace"`
			} `json:"metadata"`
			Status struct {
				DisruptionsAllowed int `json:"disruptionsAllowed"`
				ExpectedPods       int `json:"expectedPods"`
			} `json:"status"`
		} `json:"items"`
	}
	if ok, err := readKnown(s, live.FilePDBs, &pdbs); err != nil {
		return err
	} else if ok {
		c.Know(live.PartPDBs)
		for _, p := range pdbs.Items {
			if p.Status.DisruptionsAllowed == 0 && p.Status.ExpectedPods > 0 {
				c.Holding = append(c.Holding, p.Metadata.Namespace+"/"+p.Metadata.Name)
			}
		}
		slices.Sort(c.Holding)
	}
	return nil
}

// readLaunchTemplate reads the version of a node group's launch template
// the capture read (ec2-launch-template-<group>.json, as
// describe-launch-template-versions prints it): the security groups it
// gives the nodes, on the instance or on its network interfaces.
func readLaunchTemplate(s *State, group string, lt *live.LaunchTemplate) error {
	var v struct {
		Versions []struct {
			ID   string `json:"LaunchTemplateId"`
			Data struct {
				SecurityGroupIDs  []string `json:"SecurityGroupIds"`
				NetworkInterfaces []struct {
					Groups []string `json:"Groups"`
				} `json:"NetworkInterfaces"`
			} `json:"LaunchTemplateData"`
		} `json:"LaunchTemplateVersions"`
	}
	file := live.PerItem(live.PrefixLaunchTemplate, group)
	ok, err := readKnown(s, file, &v)
	if err != nil || !ok || len(v.Versions) == 0 {
		return err
	}
	if v.Versions[0].ID != lt.ID {
		return &StateError{File: file, Path: "LaunchTemplateVersions[0].LaunchTemplateId", Reason: fmt.Sprintf("the capture holds launch template %s, not %s, which node group %s uses", strconv.Quote(v.Versions[0].ID), lt.ID, group)}
	}
	data := v.Versions[0].Data
	groups := slices.Clone(data.SecurityGroupIDs)
	for _, ni := range data.NetworkInterfaces {
		groups = append(groups, ni.Groups...)
	}
	slices.Sort(groups)
	lt.Read, lt.SecurityGroups = true, slices.Compact(groups)
	return nil
}

// readNetwork reads the VPC's subnets and security groups with their
// tags, which say who owns them.
func readNetwork(s *State, c *live.Cluster) error {
	var subnets ec2Subnets
	var groups ec2SecurityGroups
	okSubnets, err := readKnown(s, live.FileSubnets, &subnets)
	if err != nil {
		return err
	}
	okGroups, err := readKnown(s, live.FileSecurityGroups, &groups)
	if err != nil {
		return err
	}
	if !okSubnets || !okGroups {
		return nil
	}
	c.Know(live.PartNetwork)
	c.Subnets, c.SecurityGroups = map[string]live.Tagged{}, map[string]live.Tagged{}
	for _, x := range subnets.Subnets {
		c.Subnets[x.SubnetID] = live.Tagged{ID: x.SubnetID, Tags: tagMap(x.Tags)}
	}
	for _, x := range groups.SecurityGroups {
		c.SecurityGroups[x.GroupID] = live.Tagged{ID: x.GroupID, Name: x.GroupName, Description: x.Description, Tags: tagMap(x.Tags)}
	}
	return nil
}

// readWorkloads reads the metadata of the cluster's Deployments, which
// say who deploys them.
func readWorkloads(s *State, c *live.Cluster) error {
	var list struct {
		Items []struct {
			Kind     string `json:"kind"`
			Metadata struct {
				Name        string            `json:"name"`
				Namespace   string            `json:"namespace"`
				Labels      map[string]string `json:"labels"`
				Annotations map[string]string `json:"annotations"`
			} `json:"metadata"`
		} `json:"items"`
	}
	ok, err := readKnown(s, live.FileWorkloads, &list)
	if err != nil || !ok {
		return err
	}
	c.Know(live.PartWorkloads)
	c.Deployments = map[string]live.Object{}
	for _, x := range list.Items {
		if x.Kind != "Deployment" {
			continue
		}
		m := x.Metadata
		c.Deployments[m.Namespace+"/"+m.Name] = live.Object{Kind: x.Kind, Namespace: m.Namespace, Name: m.Name, Labels: m.Labels, Annotations: m.Annotations}
	}
	return nil
}

// readAssociations reads every eks-pod-identity-association-*.json
// (describe-pod-identity-association): list-pod-identity-associations
// names no role.
func readAssociations(s *State, c *live.Cluster) error {
	names, err := fs.Glob(s.fsys, live.PerItem(live.PrefixAssociation, "*"))
	if err != nil {
		return err
	}
	slices.Sort(names)
	for _, file := range names {
		var a struct {
			Association struct {
				ID             string `json:"associationId"`
				Namespace      string `json:"namespace"`
				ServiceAccount string `json:"serviceAccount"`
				RoleARN        string `json:"roleArn"`
			} `json:"association"`
		}
		ok, err := readKnown(s, file, &a)
		if err != nil {
			return err
		}
		if !ok || a.Association.ID == "" {
			continue
		}
		x := a.Association
		c.Associations = append(c.Associations, live.Association{ID: x.ID, Namespace: x.Namespace, ServiceAccount: x.ServiceAccount, RoleARN: x.RoleARN})
		c.Know(live.PartAssociations)
	}
	return nil
}

// controllerImage is upstream's controller image with a release tag
// (and, as the chart writes it, a digest).
var controllerImage = lazyre.New(`^public\.ecr\.aws/karpenter/controller:v?([0-9]+\.[0-9]+\.[0-9]+)(?:@sha256:[0-9a-f]{64})?$`)

// controllerRelease is the release an upstream controller image runs, ""
// for another image (a mirror, a build of one's own): nothing is read
// from it.
func controllerRelease(image string) string {
	if m := controllerImage().FindStringSubmatch(image); m != nil {
		return m[1]
	}
	return ""
}
