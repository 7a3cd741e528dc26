// Package migrate plans karpgen migrate: bringing a cluster that scales
// with Cluster Autoscaler and managed node groups over to the Karpenter
// its profile describes, as an ordered runbook: prepare the account and
// the cluster (what SUMMARY.md's steps hold, with the commands to tag
// subnets and the right security group), let Karpenter provision beside
// Cluster Autoscaler, stop Cluster Autoscaler, move the workloads off the
// old node groups one node at a time as their PodDisruptionBudgets allow,
// then shrink and remove those groups. Every step says what to check
// before the next.
package migrate

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/karpgen/karpgen/generators"
	"github.com/karpgen/karpgen/internal/diag"
	"github.com/karpgen/karpgen/internal/doctor/live"
	"github.com/karpgen/karpgen/internal/lint"
	"github.com/karpgen/karpgen/internal/model"
	"github.com/karpgen/karpgen/internal/profile"
	"github.com/karpgen/karpgen/internal/util/escape"
)

// Options name what the profile does not know of the running cluster.
type Options struct {
	// OldGroups are the managed node groups Cluster Autoscaler scales,
	// which Karpenter replaces, in the order to empty them.
	OldGroups []string
	// Namespace and Deployment are Cluster Autoscaler's.
	Namespace, Deployment string
	// Live is what a capture says the cluster holds: the node groups'
	// subnets, roles and sizes, the authentication mode. Without one
	// the commands read them when run, and the runbook says so.
	Live *live.Cluster
}

// Runbook is the migration of one environment.
type Runbook struct {
	Env  string `json:"env"`
	From string `json:"from"`
	// State is the capture the runbook was made from; without one,
	// Assumes says what it leaves to the commands.
	State   string   `json:"state,omitempty"`
	Assumes []string `json:"assumes,omitempty"`
	// Owners are the resources the steps change, each with the owner
	// the steps change it through, and what says so.
	Owners []Owned `json:"owners"`
	Steps  []Step  `json:"steps"`
}

// Step is one step of the runbook: what to know (Markdown), the commands
// to run, and the commands that check it before the next step.
type Step struct {
	Title string   `json:"title"`
	Text  []string `json:"text"`
	// Snippets are changes to make in an owner's configuration (Terraform,
	// eksctl's ClusterConfig) before the commands run.
	Snippets []Snippet `json:"snippets"`
	Commands []string  `json:"commands"`
	Check    []string  `json:"check"`
}

// OptionError is an option the runbook cannot take.
type OptionError = diag.OptionError

// refuse is the runbook's refusal of an option.
func refuse(option, value, reason string) error {
	return &OptionError{Option: option, Value: value, Reason: reason}
}

// FromClusterAutoscaler is the runbook from Cluster Autoscaler.
func FromClusterAutoscaler(e *model.Env, o Options) (*Runbook, error) {
	if len(o.OldGroups) == 0 {
		return nil, refuse("OldGroups", "", "name the node groups Cluster Autoscaler scales, which Karpenter replaces")
	}
	if msg := lint.CheckNamespace(o.Namespace); msg != "" {
		return nil, refuse("Namespace", o.Namespace, msg)
	}
	if msg := lint.CheckResourceName("deployment", o.Deployment); msg != "" {
		return nil, refuse("Deployment", o.Deployment, msg)
	}
	for i, g := range o.OldGroups {
		// The names are printed in commands, comments and Markdown:
		// held to EKS's rule first, so that none holds a line break or
		// a shell word of its own.
		if msg := lint.CheckNodeGroupName(g); msg != "" {
			return nil, refuse("OldGroups", g, msg)
		}
		if slices.Contains(o.OldGroups[:i], g) {
			return nil, refuse("OldGroups", g, fmt.Sprintf("node group %s is named twice", g))
		}
		if _, kept := e.Profile.NodeGroups[g]; kept {
			return nil, refuse("OldGroups", g, fmt.Sprintf("node group %s is one the profile keeps (nodeGroups.%s): it is not emptied", g, g))
		}
	}
	if o.Live.Knows(live.PartNodeGroups) {
		for _, g := range o.OldGroups {
			if _, ok := o.Live.NodeGroup(g); !ok {
				return nil, refuse("OldGroups", g, fmt.Sprintf("the capture in %s has no node group %s (it holds %s)", o.Live.Dir, g, strings.Join(slices.Sorted(maps.Keys(o.Live.NodeGroups)), ", ")))
			}
		}
	}
	n := e.Names
	r := &Runbook{Env: e.Name, From: "cluster-autoscaler"}
	if o.Live != nil {
		r.State = o.Live.Dir
	}
	r.Assumes = live.Assumptions(o.Live, live.PartAuth, live.PartNodeGroups, live.PartNetwork, live.PartWorkloads)
	add := func(title string, text, commands, check []string) {
		r.Steps = append(r.Steps, Step{Title: title, Text: orEmpty(text), Snippets: []Snippet{}, Commands: orEmpty(commands), Check: orEmpty(check)})
	}
	addStep := func(st Step) {
		st.Text, st.Commands, st.Check = orEmpty(st.Text), orEmpty(st.Commands), orEmpty(st.Check)
		if st.Snippets == nil {
			st.Snippets = []Snippet{}
		}
		r.Steps = append(r.Steps, st)
	}
	own := newOwners(e, o.Live)
	kube := func(args ...string) string { return escape.ShellJoin(append([]string{"kubectl"}, args...)...) }
	aws := func(args ...string) string { return escape.ShellJoin(append([]string{"aws"}, args...)...) }

	// The account and the cluster, as SUMMARY.md's steps prepare them;
	// the tags get their commands here.
	if o.Live.Knows(live.PartAuth) && o.Live.AuthMode == "CONFIG_MAP" && e.Profile.Karpenter.NodeAccess == profile.AccessEntry {
		add("Let the cluster read access entries", []string{
			"The capture says the cluster is in CONFIG_MAP authentication mode, where EKS refuses the access entries the bundle creates for its node roles, and the IAM stack rolls back. " +
				"Switch it first (aws-auth keeps working; the change cannot be undone), or set `karpenter.nodeAccess: \"awsAuth\"` in the profile.",
		}, []string{aws("eks", "update-cluster-config", "--region", n.Region, "--name", n.Cluster, "--access-config", "authenticationMode=API_AND_CONFIG_MAP")},
			[]string{aws("eks", "describe-cluster", "--region", n.Region, "--name", n.Cluster, "--query", "cluster.accessConfig.authenticationMode", "--output", "text") + "   # API_AND_CONFIG_MAP"})
	}
	for _, s := range generators.SetupSteps(e) {
		if strings.HasPrefix(s, "Tag the node subnets") {
			addStep(tagStep(e, o, own))
			continue
		}
		if strings.HasPrefix(s, "Check the account and the cluster") {
			continue // the check of the step before the workloads move
		}
		if strings.HasPrefix(s, "Create the EKS managed node groups") {
			// In a cluster that runs, the groups the profile keeps exist
			// already: Cluster Autoscaler sized them, and its removal
			// leaves them at whatever size they had. Fix each at its size.
			addStep(keptSizesStep(e, o, own, s))
			continue
		}
		if strings.HasPrefix(s, "Deploy `out/") && own.terraform("eks") != nil {
			addStep(iamByTerraform(e, own))
			continue
		}
		add(firstSentence(s), []string{s}, nil, nil)
	}
	doctor := fmt.Sprintf("karpgen doctor %s --capture-script > capture.sh && sh capture.sh state && karpgen doctor %s --state state", e.Name, e.Name)
	// A pod on a Karpenter node must reach CoreDNS, which runs on the
	// node groups: nodes on a security group the groups' nodes do not
	// admit register, and still cannot resolve a name.
	reach := `{"spec":{"affinity":{"nodeAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":[{"matchExpressions":[{"key":"karpenter.sh/nodepool","operator":"Exists"}]}]}}},"tolerations":[{"operator":"Exists"}]}}`
	add("Let Karpenter provision beside Cluster Autoscaler", []string{
		"Leave Cluster Autoscaler running: a pod Pending now may land on either; Karpenter's pools launch only for pods they fit. " +
			"Once a Karpenter node runs, check that a pod on it resolves a name through CoreDNS on the node groups' nodes: if it cannot, the node classes select a security group those nodes do not admit (doctor/node-security-groups says which).",
	}, nil, []string{doctor, kube("get", "nodepools,ec2nodeclasses"), kube("get", "nodeclaims", "-o", "wide"),
		kube("run", "karpgen-reach", "--rm", "-i", "--restart=Never", "--image=public.ecr.aws/docker/library/busybox:1.36", "--overrides="+reach, "--", "nslookup", "kubernetes.default.svc.cluster.local") +
			"   # on a Karpenter node: prints the service's address"})

	autoscaler, err := own.deployment(o.Namespace, o.Deployment)
	if err != nil {
		return nil, fmt.Errorf("%s: Deployment %s/%s: %w", o.Live.Dir, o.Namespace, o.Deployment, err)
	}
	addStep(stopAutoscaler(o, autoscaler, doctor))

	// What the drains will ask of the pools, before the first: an EBS
	// volume stays in its zone, so a StatefulSet whose volume sits where
	// no pool reaches stays Pending once its node is drained.
	add("Place the cluster's workloads on the pools before draining", []string{
		"The simulation places the cluster's Deployments, StatefulSets and DaemonSets with Karpenter's own scheduler on what remains once the old groups are gone (the pools and the groups the profile keeps), their volumes and StorageClasses included. " +
			"A pod it leaves Pending stays Pending after its drain: a StatefulSet whose volume sits in a zone no pool reaches (incompatible volume requirements) needs that zone in a pool, or its volume moved, first; a pod that selects an old group by its labels needs its selector changed.",
	}, []string{
		fmt.Sprintf("karpgen doctor %s --capture-script > capture.sh && sh capture.sh state", e.Name),
		fmt.Sprintf("karpgen simulate %s --workloads state/k8s-workloads.json --workloads state/k8s-volumes.json", e.Name),
	}, []string{fmt.Sprintf("karpgen vet %s --workloads state/k8s-workloads.json --workloads state/k8s-volumes.json", e.Name) + "   # exit 0: no workload would stay Pending"})

	for _, g := range o.OldGroups {
		sel := "eks.amazonaws.com/nodegroup=" + g
		add("Move the workloads off node group "+g, []string{
			"Drain evicts through the Eviction API, one node at a time, so every PodDisruptionBudget holds; Karpenter launches nodes for what is evicted. " +
				"A budget that allows no disruption (ALLOWED DISRUPTIONS 0) makes the drain wait: scale its workload up first.",
		}, []string{
			kube("get", "pdb", "-A"),
			kube("cordon", "-l", sel),
			"for node in $(" + kube("get", "nodes", "-l", sel, "-o", "name") + "); do " +
				strings.Replace(kube("drain", "NODE", "--ignore-daemonsets", "--delete-emptydir-data", "--timeout=15m"), "NODE", "\"$node\"", 1) + "; done",
		}, []string{
			kube("get", "pods", "-A", "--field-selector=status.phase=Pending") + "   # no pod Pending for long",
			kube("get", "nodes", "-l", sel) + "   # every node SchedulingDisabled, running DaemonSets only",
		})
		addStep(removeGroupStep(e, o, own, g))
	}
	if n.NodeRoleExists && losesAccess(e, o) {
		keepNodeAccess(e, add)
	}
	addStep(removeAutoscaler(o, autoscaler, doctor))
	r.Owners = own.list()
	return r, nil
}

// controllerNodes is the fewest nodes the controller's group is fixed
// at: the chart runs two replicas, which its anti-affinity keeps on
// nodes of their own.
const controllerNodes = 2

// keptSize is the size a kept group is fixed at, and why: the profile's
// size, else the capture's. The group the controller runs on is never
// fixed below controllerNodes: at 0 nothing would run Karpenter.
func keptSize(e *model.Env, g string, ng live.NodeGroup) (int, string) {
	size, why := ng.Desired, fmt.Sprintf("the capture's size: %d (min %d, max %d)", ng.Desired, ng.Min, ng.Max)
	if s := e.Profile.NodeGroups[g].Size; s != nil {
		size, why = *s, fmt.Sprintf("the profile's size: %d (the capture's: %d)", *s, ng.Desired)
	}
	if g == e.Placement.ControllerGroup && size < controllerNodes {
		size, why = controllerNodes, why+fmt.Sprintf("; the controller runs here, its %d replicas on nodes of their own: never fewer than %d", controllerNodes, controllerNodes)
	}
	return size, why
}

// keepNodeAccess is the step after the old groups are gone when
// Karpenter's nodes use a role the profile adopts (often the managed node
// groups' own): deleting the last managed node group that uses a role
// removes the role from aws-auth, and EKS's access entry for it goes
// with the group, so Karpenter's new nodes would no longer join. The
// step puts the role's access back and checks it.
func keepNodeAccess(e *model.Env, add func(title string, text, commands, check []string)) {
	n := e.Names
	if e.Profile.Karpenter.NodeAccess == profile.AWSAuth {
		add("Keep node role "+n.NodeRole+" in aws-auth", []string{
			"Deleting the last managed node group that uses a node role removes the role from the aws-auth ConfigMap, and Karpenter's nodes use that role: map it again at once (the mapping of `iam/aws-auth-maproles.yaml`).",
		}, []string{escape.ShellJoin("eksctl", "create", "iamidentitymapping", "--cluster", n.Cluster, "--region", n.Region, "--arn", n.NodeRoleARN,
			"--group", "system:bootstrappers", "--group", "system:nodes", "--username", "system:node:{{EC2PrivateDNSName}}")},
			[]string{escape.ShellJoin("kubectl", "-n", "kube-system", "get", "configmap", "aws-auth", "-o", "jsonpath={.data.mapRoles}") + "   # holds " + n.NodeRoleARN})
		return
	}
	add("Keep node role "+n.NodeRole+"'s access entry", []string{
		"The access entry EKS made for the managed node groups' role goes with the last group that uses it, and Karpenter's nodes use that role: create it again at once (an error that it exists means it stayed).",
	}, []string{escape.ShellJoin("aws", "eks", "create-access-entry", "--region", n.Region, "--cluster-name", n.Cluster, "--principal-arn", n.NodeRoleARN, "--type", generators.AccessEntryType(e.Windows))},
		[]string{escape.ShellJoin("aws", "eks", "describe-access-entry", "--region", n.Region, "--cluster-name", n.Cluster, "--principal-arn", n.NodeRoleARN, "--query", "accessEntry.type") + "   # " + generators.AccessEntryType(e.Windows)})
}

// discoveryKey and discoveryValue are the tag the node classes select
// subnets by: karpenter.sh/discovery: <cluster> unless the profile says
// otherwise.
func discoveryKey(e *model.Env) string   { k, _ := discovery(e); return k }
func discoveryValue(e *model.Env) string { _, v := discovery(e); return v }

func discovery(e *model.Env) (string, string) {
	for _, name := range slices.Sorted(maps.Keys(e.Profile.NodeClasses)) {
		for _, t := range e.Profile.NodeClasses[name].SubnetSelectorTerms {
			for _, k := range slices.Sorted(maps.Keys(t.Tags)) {
				return k, t.Tags[k]
			}
		}
	}
	return "karpenter.sh/discovery", e.Names.Cluster
}

// losesAccess says whether deleting the old groups takes the adopted
// node role's access with it: the capture knows the groups' roles (the
// last group that uses the role is deleted, and no kept group uses it);
// without a capture it may.
func losesAccess(e *model.Env, o Options) bool {
	if !o.Live.Knows(live.PartNodeGroups) {
		return true
	}
	// A role is one name in an account: a group's role ARN may hold an
	// IAM path (role/nodes/ng-role) that the profile's name does not.
	old := false
	for name, g := range o.Live.NodeGroups {
		if !model.SameRole(g.Role, e.Names.NodeRoleARN) {
			continue
		}
		if !slices.Contains(o.OldGroups, name) {
			return false // a group that stays keeps the role mapped
		}
		old = true
	}
	return old
}

func kept(e *model.Env) string {
	if len(e.Profile.NodeGroups) == 0 {
		return "none"
	}
	return strings.Join(slices.Sorted(maps.Keys(e.Profile.NodeGroups)), ", ")
}

// firstSentence is a step's title: its text up to the first ": " or ".",
// without Markdown code spans' backquotes.
func firstSentence(s string) string {
	cut := len(s)
	for _, sep := range []string{": ", " (", ". "} {
		if i := strings.Index(s, sep); i >= 0 && i < cut {
			cut = i
		}
	}
	return strings.ReplaceAll(strings.TrimSuffix(s[:cut], "."), "`", "")
}

func orEmpty(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
