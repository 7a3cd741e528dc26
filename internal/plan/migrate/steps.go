package migrate

import (
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"github.com/karpgen/karpgen/internal/doctor/live"
	"github.com/karpgen/karpgen/internal/model"
	"github.com/karpgen/karpgen/internal/util/escape"
	"github.com/karpgen/karpgen/internal/util/lazyre"
)

// subnetID and securityGroupID are what EC2 names a subnet and a
// security group; anything else in a capture is not put in a command.
var (
	subnetID        = lazyre.New(`^subnet-[0-9a-f]{8,17}$`)
	securityGroupID = lazyre.New(`^sg-[0-9a-f]{8,17}$`)
)

// byKind splits resources by their owner's kind, and by stack for
// CloudFormation and eksctl.
type ownedIDs struct {
	ids   []string
	owner live.Owner
}

func group(ids []string, ownerOf func(string) live.Owner) []ownedIDs {
	index := map[string]int{}
	var out []ownedIDs
	for _, id := range ids {
		owner := ownerOf(id)
		key := owner.Kind + "\x00" + owner.Name
		if owner.Kind == live.OwnerCloudFormation {
			key += "\x00" + owner.Logical
		}
		i, ok := index[key]
		if !ok {
			i = len(out)
			index[key] = i
			out = append(out, ownedIDs{owner: owner})
		}
		out[i].ids = append(out[i].ids, id)
	}
	return out
}

// tagStep tags the subnets of the groups Karpenter replaces, and the
// security groups their nodes carry, through each one's owner.
func tagStep(e *model.Env, o Options, own *owners) Step {
	n := e.Names
	key, value := discoveryKey(e), discoveryValue(e)
	tag := "Key=" + key + ",Value=" + value
	st := Step{Title: "Tag the subnets and the security groups Karpenter's nodes use", Text: []string{
		"The node classes select subnets and security groups by the tag " + escape.Code(key+": "+value) + ". " +
			"Tag the subnets of the node groups Karpenter replaces, and the security groups their nodes carry, so that Karpenter's nodes reach what those nodes reach (CoreDNS on the groups that stay among it). " +
			"Each is tagged through what owns it: a tag added behind its owner's back is removed by the owner's next run.",
	}}
	// The subnets, as upstream's migration guide tags them: those the old
	// groups' nodes run in, never every subnet of the VPC.
	var subnets []string
	if vpc := own.terraform("vpc"); vpc != nil && !o.Live.Knows(live.PartNodeGroups) {
		// Without a capture the groups' subnets are not known, but the
		// profile says Terraform makes them: the module's input is all
		// the runbook can name.
		terraformRun(&st, own, []string{
			tagThrough(&st, e, own, ownedIDs{ids: []string{"(the old node groups')"}, owner: own.note("the old node groups' subnets", *vpc)}, "subnets", key, value),
			tagThrough(&st, e, own, ownedIDs{ids: []string{"(the node security group)"}, owner: own.note("the node security group", *own.terraform("eks"))}, "security groups", key, value),
		})
		st.Check = append(st.Check,
			escape.ShellJoin("aws", "ec2", "describe-subnets", "--filters", "Name=tag:"+key+",Values="+value, "--query", "Subnets[].SubnetId"),
			escape.ShellJoin("aws", "ec2", "describe-security-groups", "--filters", "Name=tag:"+key+",Values="+value, "--query", "SecurityGroups[].GroupId"))
		return st
	}
	for _, g := range o.OldGroups {
		ng, ok := o.Live.NodeGroup(g)
		if !ok || len(ng.Subnets) == 0 || slices.ContainsFunc(ng.Subnets, func(s string) bool { return !subnetID().MatchString(s) }) {
			why := "not in the capture"
			if o.Live == nil {
				why = "no capture"
			} else if ok {
				why = "the capture names none EC2 would"
			}
			st.Commands = append(st.Commands, "aws ec2 create-tags --tags "+escape.ShellJoin(tag)+" --resources $("+
				escape.ShellJoin("aws", "eks", "describe-nodegroup", "--cluster-name", n.Cluster, "--nodegroup-name", g, "--query", "nodegroup.subnets", "--output", "text")+")   # the subnets of node group "+g+" ("+why+": who owns them is not known)")
			continue
		}
		for _, id := range ng.Subnets {
			if !slices.Contains(subnets, id) {
				subnets = append(subnets, id)
			}
		}
	}
	var planned []string
	for _, x := range group(subnets, own.subnet) {
		if p := tagThrough(&st, e, own, x, "subnets", key, value); p != "" {
			planned = append(planned, p)
		}
	}
	// The security groups the old groups' nodes carry: their launch
	// templates' (terraform-aws-eks puts its node security group there),
	// else the cluster security group.
	var groups []string
	known := true
	for _, g := range o.OldGroups {
		ng, ok := o.Live.NodeGroup(g)
		if !ok {
			known = false
			continue
		}
		sgs, _, ok := o.Live.SecurityGroupsOf(ng)
		if !ok || slices.ContainsFunc(sgs, func(s string) bool { return !securityGroupID().MatchString(s) }) {
			known = false
			continue
		}
		for _, id := range sgs {
			if !slices.Contains(groups, id) {
				groups = append(groups, id)
			}
		}
	}
	for _, x := range group(groups, own.securityGroup) {
		if p := tagThrough(&st, e, own, x, "security groups", key, value); p != "" {
			planned = append(planned, p)
		}
	}
	terraformRun(&st, own, planned)
	if !known {
		st.Text = append(st.Text, "Which security groups the old groups' nodes carry is not known here (no capture, or none of a group's launch template): a group with a launch template of its own gives its nodes that template's ("+
			escape.Code(escape.ShellJoin("aws", "ec2", "describe-launch-template-versions", "--launch-template-id", "<id>", "--query", "LaunchTemplateVersions[0].LaunchTemplateData.SecurityGroupIds"))+"); one without, the cluster security group. Tag those, through their owner.")
		st.Commands = append(st.Commands, "aws ec2 create-tags --tags "+escape.ShellJoin(tag)+" --resources $("+
			escape.ShellJoin("aws", "eks", "describe-cluster", "--name", n.Cluster, "--query", "cluster.resourcesVpcConfig.clusterSecurityGroupId", "--output", "text")+")   # the cluster security group, for groups without a launch template")
	}
	st.Check = append(st.Check,
		escape.ShellJoin("aws", "ec2", "describe-subnets", "--filters", "Name=tag:"+key+",Values="+value, "--query", "Subnets[].SubnetId"),
		escape.ShellJoin("aws", "ec2", "describe-security-groups", "--filters", "Name=tag:"+key+",Values="+value, "--query", "SecurityGroups[].GroupId"))
	return st
}

// tagThrough adds the change that tags resources (of what, "subnets" or
// "security groups") through their owner. A Terraform change returns what
// its plan shows, for the one plan and apply of the step (terraformRun).
func tagThrough(st *Step, e *model.Env, own *owners, x ownedIDs, what, key, value string) (planned string) {
	ids := strings.Join(x.ids, ", ")
	switch x.owner.Kind {
	case live.OwnerTerraform:
		input, resource := "private_subnet_tags", x.owner.Name+".aws_subnet.private"
		if what == "security groups" {
			input, resource = "node_security_group_tags", x.owner.Name+".aws_security_group.node[0]"
		}
		st.Snippets = append(st.Snippets, Snippet{Where: fmt.Sprintf("%s (%s; merge with the tags it holds)", x.owner.Name, input), Lang: "hcl",
			Text: input + " = " + hclMap(key, value)})
		st.Text = append(st.Text, fmt.Sprintf("Terraform makes %s %s (%s): the AWS provider removes tags its configuration does not hold, so a tag added with the AWS CLI goes at the next apply. Add it to %s of %s.", what, ids, x.owner.Evidence, escape.Code(input), escape.Code(x.owner.Name)))
		return resource + ": tags updated in place"
	case live.OwnerCloudFormation:
		text, commands, check := changeSet(e.Names.Region, x.owner, fmt.Sprintf("add the tag {Key: %s, Value: %s} to the Tags of %s", key, value, ids))
		st.Text = append(st.Text, text...)
		st.Commands = append(st.Commands, commands...)
		st.Check = append(st.Check, check...)
	default:
		note := map[string]string{
			live.OwnerEksctl: "eksctl's stack made them and does not change their tags after",
			live.OwnerEKS:    "EKS made it; terraform-aws-eks and eksctl tag it with resources of their own, which leave other tags alone",
		}[x.owner.Kind]
		if note == "" {
			note = "no owner the capture shows (" + x.owner.Evidence + ")"
		}
		st.Commands = append(st.Commands, escape.ShellJoin(append([]string{"aws", "ec2", "create-tags", "--tags", "Key=" + key + ",Value=" + value, "--resources"}, x.ids...)...)+"   # "+what+": "+note)
	}
	return ""
}

// terraformRun adds a step's Terraform run: one plan, which must show
// what the changes expect and nothing else, then the apply.
func terraformRun(st *Step, own *owners, expect []string) {
	if len(expect) == 0 {
		return
	}
	st.Commands = append(st.Commands, own.terraformPlan(strings.Join(expect, "; ")), escape.ShellJoin("terraform", "-chdir="+own.terraformDir(), "apply"))
}

// keptSizesStep fixes the sizes of the groups the profile keeps, each
// through its owner: at its size, minimum, maximum and desired alike, so
// that nothing but its owner changes it once Cluster Autoscaler is gone.
func keptSizesStep(e *model.Env, o Options, own *owners, setup string) Step {
	n := e.Names
	st := Step{Title: "Fix the sizes of the node groups the profile keeps", Text: []string{setup,
		"Where a group exists already, fix it at its size: minimum, maximum and desired alike, so that nothing but you changes it once Cluster Autoscaler is gone; create the ones that do not exist.",
	}}
	var eks, planned []string
	for _, g := range slices.Sorted(maps.Keys(e.Profile.NodeGroups)) {
		if !o.Live.Knows(live.PartNodeGroups) {
			st.Commands = append(st.Commands, "size=$("+escape.ShellJoin("aws", "eks", "describe-nodegroup", "--cluster-name", n.Cluster, "--nodegroup-name", g, "--query", "nodegroup.scalingConfig.desiredSize", "--output", "text")+") && "+
				escape.ShellJoin("aws", "eks", "update-nodegroup-config", "--cluster-name", n.Cluster, "--nodegroup-name", g)+` --scaling-config "minSize=$size,maxSize=$size,desiredSize=$size"`)
			continue
		}
		ng, ok := o.Live.NodeGroup(g)
		if !ok {
			st.Commands = append(st.Commands, "# node group "+g+" is not in the capture: create it as SUMMARY.md says")
			continue
		}
		size, why := keptSize(e, g, ng)
		switch owner := own.nodeGroup(g); owner.Kind {
		case live.OwnerTerraform:
			k := terraformKey(ng, g)
			eks = append(eks, fmt.Sprintf("%s = {\n  min_size     = %d\n  max_size     = %d\n  desired_size = %d # %s\n}", hclString(k), size, size, size, why))
			planned = append(planned, fmt.Sprintf(`%s.module.eks_managed_node_group[%s].aws_eks_node_group.this[0]: scaling_config updated in place`, owner.Name, hclString(k)))
		case live.OwnerEksctl:
			st.Commands = append(st.Commands, escape.ShellJoin("eksctl", "scale", "nodegroup", "--cluster", n.Cluster, "--region", n.Region, "--name", g,
				"--nodes", fmt.Sprint(size), "--nodes-min", fmt.Sprint(size), "--nodes-max", fmt.Sprint(size))+"   # "+why+"; and the same minSize, maxSize and desiredCapacity in the ClusterConfig")
		case live.OwnerCloudFormation:
			text, commands, check := changeSet(n.Region, owner, fmt.Sprintf("set the ScalingConfig of node group %s to MinSize, MaxSize and DesiredSize %d (%s)", g, size, why))
			st.Text = append(st.Text, text...)
			st.Commands = append(st.Commands, commands...)
			st.Check = append(st.Check, check...)
		default:
			scaling := fmt.Sprintf("minSize=%d,maxSize=%d,desiredSize=%d", size, size, size)
			st.Commands = append(st.Commands, escape.ShellJoin("aws", "eks", "update-nodegroup-config", "--cluster-name", n.Cluster, "--nodegroup-name", g, "--scaling-config", scaling)+"   # "+why)
		}
	}
	if len(eks) > 0 {
		t := own.terraform("eks")
		st.Text = append(st.Text, fmt.Sprintf("Terraform makes the groups (%s): a size changed with the AWS CLI is put back at the next apply. terraform-aws-eks does not change a group's desired size after it made it, so minimum and maximum alike hold it.", t.Evidence))
		st.Snippets = append(st.Snippets, Snippet{Where: t.Name + " (eks_managed_node_groups; each entry's other settings as they are)", Lang: "hcl", Text: strings.Join(eks, "\n")})
		terraformRun(&st, own, planned)
	}
	st.Check = append(st.Check, escape.ShellJoin("aws", "eks", "list-nodegroups", "--cluster-name", n.Cluster)+"   # the groups the profile keeps: "+kept(e))
	return st
}

// removeGroupStep shrinks and removes an old group through its owner.
func removeGroupStep(e *model.Env, o Options, own *owners, g string) Step {
	n := e.Names
	st := Step{Title: "Remove node group " + g}
	check := escape.ShellJoin("aws", "eks", "list-nodegroups", "--cluster-name", n.Cluster) + "   # " + g + " gone; the groups the profile keeps: " + kept(e)
	ng, _ := o.Live.NodeGroup(g)
	owner := own.nodeGroup(g)
	switch owner.Kind {
	case live.OwnerTerraform:
		k := terraformKey(ng, g)
		st.Text = []string{fmt.Sprintf("Terraform makes the group (%s): deleted with the AWS CLI, the next apply creates it again at its old size, with nothing left to scale it. Remove its entry from %s's %s.", owner.Evidence, escape.Code(owner.Name), escape.Code("eks_managed_node_groups"))}
		st.Snippets = []Snippet{{Where: owner.Name + " (eks_managed_node_groups)", Lang: "hcl", Text: "# remove the entry " + hclString(k) + " = { ... }"}}
		terraformRun(&st, own, []string{fmt.Sprintf(`%s.module.eks_managed_node_group[%s]: its aws_eks_node_group.this[0] destroyed (with the launch template and IAM role the module made for it)`, owner.Name, hclString(k))})
		st.Check = []string{check}
	case live.OwnerEksctl:
		st.Text = []string{"eksctl made the group (" + owner.Evidence + "): delete it with eksctl, which deletes its stack, and take it out of the ClusterConfig so that no later `eksctl create nodegroup` makes it again."}
		st.Commands = []string{escape.ShellJoin("eksctl", "delete", "nodegroup", "--cluster", n.Cluster, "--region", n.Region, "--name", g)}
		st.Check = []string{check}
	case live.OwnerCloudFormation:
		text, commands, cfnCheck := changeSet(n.Region, owner, "remove node group "+g)
		st.Text, st.Commands, st.Check = text, commands, append(cfnCheck, check)
	default:
		st.Title = "Shrink, then remove node group " + g
		st.Commands = []string{
			escape.ShellJoin("aws", "eks", "update-nodegroup-config", "--cluster-name", n.Cluster, "--nodegroup-name", g, "--scaling-config", "minSize=0,maxSize=1,desiredSize=0"),
			escape.ShellJoin("aws", "eks", "delete-nodegroup", "--cluster-name", n.Cluster, "--nodegroup-name", g),
		}
		st.Check = []string{check}
	}
	return st
}

// stopAutoscaler stops Cluster Autoscaler through what deploys it.
func stopAutoscaler(o Options, owner live.Owner, doctor string) Step {
	kube := func(args ...string) string { return escape.ShellJoin(append([]string{"kubectl"}, args...)...) }
	dep := "deployment/" + o.Deployment
	replicas := kube("-n", o.Namespace, "get", dep, "-o", "jsonpath={.status.replicas}") + "   # empty or 0, and still so a few minutes later"
	st := Step{Title: "Stop Cluster Autoscaler", Check: []string{replicas, doctor + "   # doctor/cluster-autoscaler ok: no Cluster Autoscaler runs in any namespace"}}
	switch owner.Kind {
	case live.OwnerArgoCD:
		st.Text = []string{fmt.Sprintf("Argo CD Application %s deploys Cluster Autoscaler (%s): its self-heal scales a Deployment changed with kubectl back within minutes. Set its replicas to 0 in the Application's source in Git, and let Argo CD sync it.", escape.Code(owner.Name), owner.Evidence)}
		st.Snippets = []Snippet{{Where: "the Deployment " + o.Namespace + "/" + o.Deployment + " in Application " + owner.Name + "'s source (or its chart's values: replicaCount: 0)", Lang: "yaml", Text: "spec:\n  replicas: 0"}}
		st.Check = append([]string{escape.ShellJoin("argocd", "app", "get", owner.Name, "--refresh") + "   # Synced, Healthy"}, st.Check...)
	default:
		st.Text = []string{"If Argo CD (or another GitOps controller) deploys Cluster Autoscaler, set its replicas to 0 in that source, or turn off its Application's self-heal first: a self-heal scales the Deployment back up within minutes. The first command prints the Application that tracks it (empty when none does; with label tracking, look at its `app.kubernetes.io/instance` label)."}
		if owner.Kind == live.OwnerHelm {
			st.Text = []string{fmt.Sprintf("Helm release %s deploys Cluster Autoscaler (%s); Helm puts nothing back, so scaling it is safe until the release is removed.", escape.Code(owner.Name), owner.Evidence)}
		}
		st.Commands = []string{
			kube("-n", o.Namespace, "get", dep, "-o", `jsonpath={.metadata.annotations.argocd\.argoproj\.io/tracking-id}`),
			kube("-n", o.Namespace, "scale", dep, "--replicas=0"),
		}
	}
	return st
}

// removeAutoscaler removes Cluster Autoscaler as it was installed.
func removeAutoscaler(o Options, owner live.Owner, doctor string) Step {
	gone := escape.ShellJoin("kubectl", "-n", o.Namespace, "get", "deployment/"+o.Deployment) + "   # NotFound"
	switch owner.Kind {
	case live.OwnerArgoCD:
		return Step{Title: "Remove Cluster Autoscaler", Text: []string{fmt.Sprintf("Remove Cluster Autoscaler from Git: the Application %s (or the Deployment from its source); Argo CD prunes what it deployed. Then its IAM role or policy and the `k8s.io/cluster-autoscaler/*` tags of the groups that remain, through their owners.", escape.Code(owner.Name))},
			Check: []string{gone, doctor}}
	case live.OwnerHelm:
		return Step{Title: "Remove Cluster Autoscaler", Text: []string{"Uninstall its release, then its IAM role or policy and the `k8s.io/cluster-autoscaler/*` tags of the groups that remain, through their owners."},
			Commands: []string{escape.ShellJoin("helm", "uninstall", owner.Name, "--namespace", o.Namespace)}, Check: []string{gone, doctor}}
	}
	return Step{Title: "Remove Cluster Autoscaler", Text: []string{"Remove it as it was installed (this, or helm uninstall), then its IAM role or policy and the `k8s.io/cluster-autoscaler/*` tags of the groups that remain."},
		Commands: []string{escape.ShellJoin("kubectl", "-n", o.Namespace, "delete", "deployment/"+o.Deployment)}, Check: []string{doctor}}
}

// iamByTerraform applies the bundle's IAM as a Terraform module, where
// the profile says Terraform owns the cluster: never the template beside
// it, which would create each name a second time.
func iamByTerraform(e *model.Env, own *owners) Step {
	dir := "out/" + e.Name + "/iam/terraform"
	st := Step{Title: "Apply the bundle's IAM with Terraform",
		Text: []string{"Terraform owns the cluster (" + own.terraform("eks").Evidence + "): the bundle's IAM is its module " + escape.Code(dir+"/") +
			", added to the root module beside the others (the same roles, policies, queue and rules as the template, under the same names). Never deploy the template as well: each name would be created twice."},
		Snippets: []Snippet{{Where: "the root module in " + own.terraformDir() + " (both folders as the repository holds them)", Lang: "hcl",
			Text: fmt.Sprintf("module %s {\n  source = %s\n}", hclString("karpenter_iam_"+e.Name), hclString(moduleSource(own.terraformDir(), dir)))}},
	}
	terraformRun(&st, own, []string{fmt.Sprintf("module.%s: every resource to add, nothing to change or destroy", "karpenter_iam_"+e.Name)})
	st.Check = []string{escape.ShellJoin("aws", "iam", "get-role", "--role-name", e.Names.NodeRole, "--query", "Role.Arn", "--output", "text")}
	return st
}

// moduleSource is a local module's source as Terraform reads it: the path
// from the root module's folder, starting with ./ or ../ (both folders
// relative to the repository, or absolute).
func moduleSource(root, module string) string {
	rel, err := filepath.Rel(root, module)
	if err != nil {
		return module
	}
	rel = filepath.ToSlash(rel)
	if !strings.HasPrefix(rel, "../") && !strings.HasPrefix(rel, "/") {
		rel = "./" + rel
	}
	return rel
}
