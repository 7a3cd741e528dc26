package upgrade

import (
	"encoding/json"
	"fmt"
	"maps"
	"path"
	"slices"
	"strings"

	"github.com/karpgen/karpgen/generators"
	"github.com/karpgen/karpgen/internal/doctor/live"
	"github.com/karpgen/karpgen/internal/facts"
	"github.com/karpgen/karpgen/internal/fleetdiff"
	"github.com/karpgen/karpgen/internal/iam/cfnpreview"
	"github.com/karpgen/karpgen/internal/iam/iampolicy"
	"github.com/karpgen/karpgen/internal/model"
	"github.com/karpgen/karpgen/internal/util/escape"
)

// Dir is where --write puts a plan, under out/: <env>/upgrade/<to>.
func (p *Plan) Dir() string { return path.Join(p.Env, "upgrade", p.To) }

// steps are the plan in apply order: the checks that cannot be made
// offline, from v1alpha5 the move onto 0.32's v1beta1 objects, IAM that
// serves every controller on the way, then for each hop the CRDs and the
// controller, then the objects at the target, and last the removal of
// what only the old controllers needed.
func (p *Plan) steps() []Step {
	target := p.envs[len(p.envs)-1]
	n := target.Names
	ns := n.Namespace
	dir := "out/" + p.Dir()
	// Every name in a command is one shell word, quoted where needed.
	sh := escape.ShellJoin
	var steps []Step
	movedAliases := map[string]bool{}
	add := func(title, command, ifFails string) {
		steps = append(steps, Step{Order: len(steps) + 1, Title: title, Command: command, IfFails: ifFails})
	}
	crosses := func(minor string) bool {
		for _, v := range p.versions[1:] {
			if v.MinorString() == minor {
				return true
			}
		}
		return false
	}
	storedV1 := func() {
		add("Check that the CRDs store only v1 (1.1 drops v1beta1)",
			"kubectl get crd nodepools.karpenter.sh nodeclaims.karpenter.sh ec2nodeclasses.karpenter.k8s.aws -o jsonpath='{range .items[*]}{.metadata.name}: {.status.storedVersions}{\"\\n\"}{end}'",
			"every line must read [\"v1\"]: run 1.0.x (its conversion webhooks migrate the objects; 1.0.6+ migrates stored versions itself), re-apply every NodePool and EC2NodeClass, then remove v1beta1 from status.storedVersions with `kubectl patch crd <name> --subresource=status --type=merge -p '{\"status\":{\"storedVersions\":[\"v1\"]}}'`")
		add("Check that no v1beta1 webhook configuration is left",
			"kubectl get validatingwebhookconfigurations,mutatingwebhookconfigurations -o name | grep -i karpenter",
			"delete each one listed (`kubectl delete <name>`): they point at webhooks 1.1 no longer serves and would block every NodePool and EC2NodeClass change")
	}
	// From a v1 release the checks come first, before anything changes;
	// from a 0.x release they can only hold once 1.0 has run, so they come
	// before the hop to 1.1.
	if crosses("1.1") && p.versions[0].Major > 0 {
		storedV1()
	}
	// From a Helm release to Argo CD: whatever Application deploys the
	// release now must let go of it before the Helm hops, without taking
	// the CRDs, the NodePools and the nodes with it.
	handover := target.Application != nil && p.fromHelm(ns)
	if handover {
		// The values first: retiring the Application deletes it.
		if p.versions[0].Major == 0 {
			p.saveArgoValues(add)
		}
		p.retireOldApplication(add, target.Application)
	}
	if p.FromAlpha() {
		p.alphaSteps(add, dir)
	}
	transition := p.TransitionPolicies()
	if len(transition) > 0 {
		var cmds []string
		for _, cp := range transition {
			cmds = append(cmds, p.attach(cp, dir))
		}
		add("Let the controller keep what the running release needs, beside what the target needs (transition policies)", strings.Join(cmds, "\n"), "")
	}
	// A cluster that ran Karpenter before v1 is usually in CONFIG_MAP
	// authentication mode: EKS refuses the template's access entries
	// there, and the whole IAM stack rolls back.
	// The capture says the mode (a CONFIG_MAP cluster is a blocker);
	// without it, a check.
	if !p.live.Knows(live.PartAuth) && p.versions[0].Major == 0 && needsAccessEntries(target) {
		add("Check that the cluster reads access entries (the template creates them for its node roles)",
			sh("aws", "eks", "describe-cluster", "--region", n.Region, "--name", n.Cluster, "--query", "cluster.accessConfig.authenticationMode", "--output", "text"),
			"it must print API_AND_CONFIG_MAP or API: a cluster in CONFIG_MAP mode refuses access entries and the IAM stack rolls back. Switch it with `"+
				sh("aws", "eks", "update-cluster-config", "--region", n.Region, "--name", n.Cluster, "--access-config", "authenticationMode=API_AND_CONFIG_MAP")+
				"` (aws-auth keeps working; the change cannot be undone), or set karpenter.nodeAccess: \"awsAuth\" in the profile")
	}
	deploy := "Deploy the target's IAM (controller policies, node role, interruption queue and rules)"
	if p.Stack != nil {
		deploy += " (stack " + n.Stack + ", from the capture: " + cfnpreview.Counts(p.Stack.Changes) + ")"
	}
	add(deploy,
		sh("aws", "cloudformation", "deploy", "--region", n.Region, "--template-file", dir+"/iam/cloudformation.yaml", "--stack-name", n.Stack, "--capabilities", "CAPABILITY_NAMED_IAM"), "")
	p.adoptedQueueRules(add)
	for i, v := range p.versions[1:] {
		if v.Major == 0 {
			if !facts.Alpha.Holds(v) {
				p.betaHopSteps(add, v, dir)
			}
			continue
		}
		if v.MinorString() == "1.1" && p.versions[0].Major == 0 {
			storedV1()
		}
		p.kubernetesSteps(add, v.String(), movedAliases)
		if app := target.Application; app != nil {
			// Argo CD renders the charts with helm template: there is no
			// release to upgrade. Each hop is a commit of the profile at
			// that release, which the Application syncs (CRDs before the
			// objects that use them) and waits on.
			if handover {
				p.checkPlugin(add, app)
			}
			cmd := p.argoCommit(app, fmt.Sprintf("karpenter.version: %q", v), fmt.Sprintf("Karpenter %s", v))
			if handover {
				// The first sync needs the Application (and its project):
				// no earlier step made them.
				cmd = strings.Replace(cmd, "\n", "\n"+sh("kubectl", "apply", "-f", "out/"+p.Env+"/"+model.FileApplication)+" && ", 1)
			}
			add(fmt.Sprintf("Move the profile to %s and let Argo CD sync the CRDs, the controller and the objects", v), cmd, "")
			if handover {
				p.dropHelmRecords(add, ns)
				handover = false
			}
			continue
		}
		values := fmt.Sprintf("%s/helm/karpenter-values-%s.yaml", dir, v)
		if i == len(p.versions)-2 {
			values = dir + "/helm/karpenter-values.yaml"
		}
		add(fmt.Sprintf("Upgrade the CRDs to %s", v),
			sh("helm", "upgrade", "--install", "karpenter-crd", generators.ChartRef("karpenter-crd"), "--version", v.String(), "--namespace", ns), "")
		add(fmt.Sprintf("Upgrade the controller to %s", v),
			sh("helm", "upgrade", "karpenter", generators.ChartRef("karpenter"), "--version", v.String(), "--namespace", ns, "--values", values)+
				" && "+sh("kubectl", "-n", ns, "rollout", "status", "deployment/karpenter"), "")
	}
	p.kubernetesSteps(add, "", movedAliases)
	set := fmt.Sprintf("karpenter.version: %q", p.To)
	if p.KubernetesTo != "" {
		set += fmt.Sprintf(" and cluster.kubernetesVersion: %q", p.KubernetesTo)
	}
	switch app := target.Application; {
	case app == nil:
		add("Move the profile to the target and apply its NodePools and EC2NodeClasses",
			fmt.Sprintf("set %s in the profile, then: %s && %s", set, sh("karpgen", "render", p.Env), sh("kubectl", "apply", "-k", "out/"+p.Env)), "")
	case p.KubernetesTo != "":
		// Each hop moved karpenter.version; the Kubernetes version is the
		// profile's last change.
		add("Move the profile to the cluster's Kubernetes and let Argo CD sync it",
			p.argoCommit(app, fmt.Sprintf("cluster.kubernetesVersion: %q", p.KubernetesTo), "Kubernetes "+p.KubernetesTo), "")
	}
	if len(transition) > 0 {
		add("Remove the transition policies once the target controller runs", p.detach(transition), "")
	}
	if beta := p.betaPolicies(); len(beta) > 0 {
		add("Remove the v1beta1 controller policies once the target controller runs", p.detach(beta), "")
	}
	return steps
}

// retireOldApplication is the first step of a move from a Helm release
// to Argo CD: an Application of the team's that deploys the release now
// (its tracking annotation on the controller's Deployment names it) must
// let go of it without a cascading delete, which would remove the CRDs,
// every NodePool and every node, and its automated sync would undo each
// Helm hop.
func (p *Plan) retireOldApplication(add func(title, command, ifFails string), app *model.Application) {
	ns := p.envs[len(p.envs)-1].Names.Namespace
	if p.live.Knows(live.PartTracking) {
		// The capture names it: nothing to find.
		if old := p.live.Tracking; old != "" && old != app.Name {
			add("Retire Application "+old+", which deploys Karpenter now, keeping everything it deployed",
				escape.ShellJoin("argocd", "app", "delete", old)+" --cascade=false --yes",
				"never a cascading delete: it removes the CRDs, every NodePool and every node. To keep the Application for now, turn its automated sync off instead, `"+
					escape.ShellJoin("argocd", "app", "set", old, "--sync-policy", "none")+"`, before the Helm hops; "+app.Namespace+"/"+app.Name+", the bundle's, takes over")
		}
		return
	}
	add("Find the Application that deploys Karpenter now, if any",
		escape.ShellJoin("kubectl", "-n", ns, "get", "deployment", "karpenter", "-o", `jsonpath={.metadata.annotations.argocd\.argoproj\.io/tracking-id}`),
		"empty: no Application tracks it (with label tracking, read its app.kubernetes.io/instance label). Otherwise the text before the first colon names the Application: "+
			"delete it without deleting what it deployed, `argocd app delete NAME --cascade=false` (never a cascading delete: it removes the CRDs, every NodePool and every node), "+
			"or at least turn its automated sync off, `argocd app set NAME --sync-policy none`, before the Helm hops; "+app.Namespace+"/"+app.Name+", the bundle's, takes over at 1.0")
}

// argoValuesFile is where the 0.x hops read the values the Application
// applied: a Helm record left from before Argo CD took over holds older
// ones, so no hop reuses the record's.
const argoValuesFile = "argocd-values.yaml"

// saveArgoValues saves the Helm values the Application that deploys the
// 0.x release applies now, for the Helm hops to 1.0.
func (p *Plan) saveArgoValues(add func(title, command, ifFails string)) {
	app := "NAME"
	if p.live.Knows(live.PartTracking) && p.live.Tracking != "" {
		app = p.live.Tracking
	}
	add("Save the Helm values the Application that deploys Karpenter applies now (the 0.x hops read them, never a Helm record's)",
		escape.ShellJoin("argocd", "app", "get", app, "-o", "json")+" | jq -r '.spec.source.helm.values // \"\"' > "+argoValuesFile,
		"an Application that sets its values otherwise (helm.valuesObject, value files in Git, several sources) needs those written to "+argoValuesFile+" instead; an empty file means the chart's defaults, which the hops then apply")
}

// hopValues are the helm flags of a 0.x hop's values: the saved values of
// the Application that deployed the release (saveArgoValues), else the
// release's own record.
func (p *Plan) hopValues() []string {
	target := p.envs[len(p.envs)-1]
	if target.Application != nil && p.fromHelm(target.Names.Namespace) && p.versions[0].Major == 0 {
		return []string{"--values", argoValuesFile}
	}
	return []string{"--reuse-values"}
}

// adoptedQueueRules creates the interruption rules the target's minor
// adds (1.10's capacity-reservation rule) for a queue the profile adopts:
// the bundle creates no rule beside an adopted queue, so no deploy does.
func (p *Plan) adoptedQueueRules(add func(title, command, ifFails string)) {
	target := p.envs[len(p.envs)-1]
	n := target.Names
	if !n.QueueExists || n.Queue == "" {
		return
	}
	// From 0.x, the queue came with the rules of the oldest v1 minor's
	// template, the getting-started guide's.
	from := facts.Oldest()
	if p.envs[0] != nil {
		from = p.envs[0].Facts
	}
	had := map[string]bool{}
	for _, r := range from.InterruptionRules {
		had[r.Name] = true
	}
	for i, r := range target.Facts.InterruptionRules {
		if had[r.Name] {
			continue
		}
		rule := generators.InterruptionRules(target.Facts, n)[i].(map[string]any)
		pattern, err := json.Marshal(rule["EventPattern"])
		if err != nil {
			continue
		}
		name := n.RuleName(r)
		add(fmt.Sprintf("Create the interruption rule %s for the adopted queue %s (%s; the bundle creates no rule beside a queue it adopts)", name, n.Queue, r.DetailType),
			escape.ShellJoin("aws", "events", "put-rule", "--region", n.Region, "--name", name, "--event-pattern", string(pattern))+" && "+
				escape.ShellJoin("aws", "events", "put-targets", "--region", n.Region, "--rule", name, "--targets", "Id=KarpenterInterruptionQueueTarget,Arn="+n.QueueARN),
			"the queue's policy must let events.amazonaws.com send to it, as doctor/interruption checks: karpgen doctor "+p.Env+" --state checks both")
	}
}

// checkPlugin checks that the repo-server runs karpgen's plugin before
// the first sync of the bundle's Application, which renders through it.
func (p *Plan) checkPlugin(add func(title, command, ifFails string), app *model.Application) {
	add("Check that Argo CD's repo-server runs karpgen's plugin",
		escape.ShellJoin("kubectl", "-n", app.Namespace, "get", "deployment", "argocd-repo-server", "-o", "jsonpath={.spec.template.spec.containers[*].name}"),
		"the list must name the karpgen sidecar: add it as docs/argocd.md says (deploy/argocd/repo-server-patch.yaml), or the Application's sync fails to render")
}

// dropHelmRecords removes the Helm release's records once Argo CD owns
// what the release made: helm uninstall would delete the resources.
func (p *Plan) dropHelmRecords(add func(title, command, ifFails string), ns string) {
	add("Remove the Helm releases' records, keeping what they made (Argo CD owns it now)",
		escape.ShellJoin("kubectl", "-n", ns, "delete", "secret", "-l", "owner=helm,name=karpenter")+" && "+
			escape.ShellJoin("kubectl", "-n", ns, "delete", "secret", "-l", "owner=helm,name=karpenter-crd")+" && "+
			escape.ShellJoin("helm", "list", "-n", ns),
		"never helm uninstall: it deletes the controller, the CRDs and with them every NodePool and node; the records alone go, and helm list shows no karpenter release")
}

// argoCommit is the command of a change Argo CD delivers: set the profile
// field, render, commit and push, then sync the Application and wait until
// it is synced and healthy.
func (p *Plan) argoCommit(app *model.Application, set, what string) string {
	sh := escape.ShellJoin
	name := app.Namespace + "/" + app.Name
	return fmt.Sprintf("set %s in the profile, then: %s && %s && %s && %s\n%s && %s", set,
		sh("karpgen", "render", p.Env), sh("git", "add", "profiles", "out/"+p.Env),
		sh("git", "commit", "-m", p.Env+": "+what), sh("git", "push"),
		sh("argocd", "app", "sync", name), sh("argocd", "app", "wait", name, "--sync", "--health", "--timeout", "600"))
}

// TransitionPolicies are the statements a release on the way needs that
// the target's policies do not hold, packed into managed policies that
// each fit IAM's size limit: attached beside the target's, they let every
// controller of the move work while the next one starts.
func (p *Plan) TransitionPolicies() []iampolicy.ControllerPolicy {
	last := len(p.envs) - 1
	have := fleetdiff.ControllerStatements(p.bundles[last].Files)
	var extra []any
	seen := map[string]bool{}
	for i, b := range p.bundles[:last] {
		if b == nil {
			continue
		}
		sts := fleetdiff.ControllerStatements(b.Files)
		for _, sid := range slices.Sorted(maps.Keys(sts)) {
			st := sts[sid]
			if t, ok := have[sid]; ok && equalJSON(t, st) {
				continue
			}
			key := fmt.Sprint(iampolicy.Normalize(st))
			if seen[key] {
				continue
			}
			seen[key] = true
			// A statement id is unique within a policy: say which release
			// the statement is of.
			cp := map[string]any{}
			for k, v := range st {
				cp[k] = v
			}
			cp["Sid"] = sid + "Of" + strings.ReplaceAll(p.versions[i].MinorString(), ".", "")
			extra = append(extra, cp)
		}
	}
	return pack(extra, p.envs[last].Names)
}

// pack puts statements into as few documents as fit the size limit.
func pack(sts []any, n model.Names) []iampolicy.ControllerPolicy {
	var out []iampolicy.ControllerPolicy
	var cur []any
	flush := func() {
		if len(cur) == 0 {
			return
		}
		i := len(out) + 1
		part := fmt.Sprintf("Transition%d", i)
		out = append(out, iampolicy.ControllerPolicy{
			Part: part, File: model.ControllerPolicyFile(fmt.Sprintf("transition-%d", i)), Name: n.ControllerPolicyName(part),
			LogicalID: fmt.Sprintf("KarpenterControllerTransition%dPolicy", i),
			Document:  map[string]any{"Version": "2012-10-17", "Statement": slices.Clone(cur)},
		})
		cur = nil
	}
	for _, st := range sts {
		next := append(slices.Clone(cur), st)
		if len(cur) > 0 && iampolicy.CompactSize(map[string]any{"Version": "2012-10-17", "Statement": next}) > iampolicy.MaxPolicySize {
			flush()
			next = []any{st}
		}
		cur = next
	}
	flush()
	return out
}

func equalJSON(a, b any) bool {
	return fmt.Sprint(iampolicy.Normalize(a)) == fmt.Sprint(iampolicy.Normalize(b))
}

// kubernetesSteps adds the Kubernetes upgrades made before the hop to
// before ("" for after the last hop): the control plane, then each
// managed node group; Karpenter's own nodes follow by drift when their
// AMI alias is @latest, else with the AMI the profile names next.
// moved names the node classes whose pinned AMI release an earlier step
// already moves.
func (p *Plan) kubernetesSteps(add func(title, command, ifFails string), before string, moved map[string]bool) {
	target := p.envs[len(p.envs)-1]
	n := target.Names
	for _, k := range p.Kubernetes {
		if k.Before != before {
			continue
		}
		// Karpenter resolves an alias for the control plane's minor: a
		// release pinned before that minor existed has no image for it,
		// and once the control plane moves no node launches. The alias
		// moves once, before the first control-plane step it cannot
		// follow, to the newest release for the plan's last minor (EKS
		// builds each release for every minor it supports, so it has
		// images for the minors between too).
		for _, name := range slices.Sorted(maps.Keys(target.Profile.NodeClasses)) {
			alias := target.Profile.NodeClasses[name].AMI.Alias
			release, released, lacks := facts.AMIReleaseLacks(alias, k.To)
			if !lacks || moved[name] {
				continue
			}
			moved[name] = true
			family, _, _ := strings.Cut(alias, "@")
			cmd := ""
			if param := facts.AMIRecommendedName(family, p.KubernetesTo); param != "" {
				cmd = escape.ShellJoin("aws", "ssm", "get-parameter", "--region", n.Region, "--name", param, "--query", "Parameter.Value", "--output", "text")
			}
			add(fmt.Sprintf("Before Kubernetes %s: move node class %s off AMI release %s (of %s; Kubernetes %s was released %s, so it has no image for it): set nodeClasses.%s.ami.alias to the newest release for %s (the command names its image; the release is the name's v-suffix), render, deploy, and let the nodes drift",
				k.To, name, alias, release, k.To, released, name, p.KubernetesTo), cmd,
				"with the alias unchanged, no node of the class launches once the control plane runs "+k.To)
		}
		cmds := []string{
			escape.ShellJoin("aws", "eks", "update-cluster-version", "--region", n.Region, "--name", n.Cluster, "--kubernetes-version", k.To) +
				" && " + escape.ShellJoin("aws", "eks", "wait", "cluster-active", "--region", n.Region, "--name", n.Cluster),
		}
		for _, g := range slices.Sorted(maps.Keys(target.Profile.NodeGroups)) {
			cmds = append(cmds, escape.ShellJoin("aws", "eks", "update-nodegroup-version", "--region", n.Region, "--cluster-name", n.Cluster, "--nodegroup-name", g, "--kubernetes-version", k.To))
		}
		add(fmt.Sprintf("Upgrade Kubernetes from %s to %s (the control plane, then the managed node groups)", k.From, k.To), strings.Join(cmds, "\n"),
			"Karpenter's nodes move by drift when their AMI alias is @latest; with a pinned alias, name a release for the new Kubernetes in the profile")
		if k.To == p.KubernetesTo {
			p.pinnedIDSteps(add, k.To)
		}
	}
}

// pinnedIDSteps move the node classes that pin their AMIs by ID, once
// the control plane runs the plan's last Kubernetes: an image holds the
// kubelet of the Kubernetes it was built for, and its ID never selects
// another, so their nodes would stay on the old kubelet for good (a
// kubelet older than the control plane joins; a newer one would not,
// hence after the control plane, not before).
func (p *Plan) pinnedIDSteps(add func(title, command, ifFails string), k string) {
	target := p.envs[len(p.envs)-1]
	n := target.Names
	for _, name := range slices.Sorted(maps.Keys(target.Profile.NodeClasses)) {
		ami := target.Profile.NodeClasses[name].AMI
		if len(ami.IDs) == 0 {
			continue
		}
		cmd := ""
		if param := facts.AMIRecommendedName(strings.ToLower(ami.Family), k); param != "" {
			cmd = escape.ShellJoin("aws", "ssm", "get-parameter", "--region", n.Region, "--name", strings.TrimSuffix(param, "/image_name")+"/image_id", "--query", "Parameter.Value", "--output", "text")
		}
		add(fmt.Sprintf("Move node class %s's pinned AMIs (%s) to images for Kubernetes %s: set nodeClasses.%s.ami.ids to them (the command names the recommended one for x86_64; take each architecture you run), render, deploy, and let the nodes drift",
			name, strings.Join(ami.IDs, ", "), k, name), cmd,
			"with the IDs unchanged, the class's nodes keep the kubelet of the Kubernetes their images were built for")
	}
}
