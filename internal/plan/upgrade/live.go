package upgrade

import (
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/karpgen/karpgen/internal/doctor/live"
	"github.com/karpgen/karpgen/internal/iam/cfnpreview"
	"github.com/karpgen/karpgen/internal/iam/iampolicy"
	"github.com/karpgen/karpgen/internal/model"
	"github.com/karpgen/karpgen/internal/profile"
	"github.com/karpgen/karpgen/internal/util/escape"
)

// retirement is what the getting-started stack (Karpenter-<cluster>)
// still holds of what the profile adopts: its resources have no
// DeletionPolicy Retain by upstream's templates, so deleting the stack,
// as a team does once the bundle's stack runs, deletes the queue and
// the roles Karpenter uses. With the capture, each is named with its
// logical ID and policy; without it, the plan says what to check.
func (p *Plan) retirement() []string {
	target := p.envs[len(p.envs)-1]
	n := target.Names
	gs := model.GettingStartedStack(n.Cluster)
	if gs == n.Stack {
		return nil // the bundle deploys to that stack itself
	}
	adopted := map[string]string{} // "type\x00name" -> what it is
	if n.QueueExists && n.Queue != "" {
		adopted["AWS::SQS::Queue\x00"+n.Queue] = "the interruption queue " + n.Queue
	}
	for _, r := range n.NodeRoles() {
		if r.Exists {
			adopted["AWS::IAM::Role\x00"+r.Name] = "the node role " + r.Name
		}
	}
	if n.ControllerRoleExists {
		adopted["AWS::IAM::Role\x00"+n.ControllerRole] = "the controller role " + n.ControllerRole
	}
	if len(adopted) == 0 {
		return nil
	}
	deploy := escape.ShellJoin("aws", "cloudformation", "deploy", "--region", n.Region, "--stack-name", gs, "--template-file", "TEMPLATE")
	retire := func(lead, which string) []string {
		return []string{
			lead + ": " + which + " no DeletionPolicy Retain, so deleting the stack deletes them, and Karpenter loses what it runs with.",
			"To retire the stack: set DeletionPolicy: Retain on them in its template, update it (" + deploy + "), and only then delete it. Or keep it, and never delete it.",
		}
	}
	var st *live.Stack
	if p.live != nil {
		st = p.live.Stacks[gs]
	}
	if st == nil || !st.Exists {
		if st != nil {
			return nil // the capture says it does not exist
		}
		var what []string
		for _, k := range slices.Sorted(maps.Keys(adopted)) {
			what = append(what, adopted[k])
		}
		return retire("If the getting-started guide made stack "+gs+", it holds "+strings.Join(what, ", ")+", which the profile adopts", "upstream's templates give them")
	}
	var held, unsafe, policies []string
	for _, r := range st.Resources {
		if r.Type == "AWS::IAM::ManagedPolicy" && n.ControllerRoleExists {
			policies = append(policies, cfnpreview.PhysicalName(r.Type, r.Physical))
		}
		what, ok := adopted[r.Type+"\x00"+cfnpreview.PhysicalName(r.Type, r.Physical)]
		if !ok {
			continue
		}
		held = append(held, what+" ("+r.Logical+")")
		policy := ""
		if st.Template != nil {
			policy = st.Template.Resources[r.Logical].DeletionPolicy
		}
		if policy != "Retain" && policy != "RetainExceptOnCreate" {
			unsafe = append(unsafe, r.Logical)
		}
	}
	var out []string
	switch lead := "Stack " + gs + " still holds " + strings.Join(held, ", ") + ", which the profile adopts"; {
	case len(held) == 0:
		return nil
	case len(unsafe) == 0:
		out = []string{lead + "; each has DeletionPolicy Retain, so deleting the stack leaves them in the account"}
	case st.Template == nil:
		out = retire(lead, "its template was not captured; upstream's give them")
	default:
		out = retire(lead, strings.Join(unsafe, ", ")+" have")
	}
	return append(out, stalePolicies(n, gs, policies)...)
}

// stalePolicies says what becomes of the getting-started stack's
// controller policies when the profile adopts the controller role: the
// bundle's own stack attaches its policies beside them, so they keep
// granting what their release allowed until they are detached where
// they were attached (eksctl's podIdentityAssociations or
// iamServiceAccounts attach them by permissionPolicyARNs or
// attachPolicyARNs).
func stalePolicies(n model.Names, stack string, policies []string) []string {
	if len(policies) == 0 {
		return nil
	}
	var detach []string
	for _, p := range policies {
		detach = append(detach, escape.ShellJoin("aws", "iam", "detach-role-policy", "--role-name", n.ControllerRole, "--policy-arn", n.PolicyARN(p)))
	}
	what, them := "controller policy "+policies[0]+" stays", "it"
	if len(policies) > 1 {
		what, them = "controller policies "+strings.Join(policies, ", ")+" stay", "them"
	}
	return []string{"Stack " + stack + "'s " + what + " attached to the adopted role " + n.ControllerRole +
		" beside the bundle's, granting what its release allowed. Once the target controller runs, detach " + them + " where it was attached: for eksctl's role, drop " + them +
		" from the config's permissionPolicyARNs (podIdentityAssociations) or attachPolicyARNs (iamServiceAccounts) and run eksctl update podidentityassociation -f CONFIG or eksctl update iamserviceaccount -f CONFIG; else " +
		strings.Join(detach, " && ") + ". The stack holds the policy resource until it is retired"}
}

// readLive plans from the capture: what deploying the target's IAM does
// to its stack, each change that harms what runs a blocker. Without a
// capture, the plan says once what it assumes instead.
func (p *Plan) readLive() error {
	target := p.envs[len(p.envs)-1]
	n := target.Names
	p.Retirement = p.retirement()
	if p.live == nil {
		p.Assumes = p.assumptions(target)
		return nil
	}
	p.State = p.live.Dir
	if k := p.live.Kubernetes; k != "" && k != p.KubernetesVersion {
		p.Blockers = append(p.Blockers, block("upgrade/state-kubernetes", "the capture says cluster "+n.Cluster+" runs Kubernetes "+k+"; the profile says "+p.KubernetesVersion+
			": set cluster.kubernetesVersion to "+k+", the cluster's, and the plan starts from there"))
	}
	if v := p.live.Controller; v != "" && !slices.Contains(p.Versions(), v) {
		p.Blockers = append(p.Blockers, block("upgrade/state-version", "the capture says the controller runs Karpenter "+v+" (its Deployment's image); the plan starts from "+p.From+
			" and never passes "+v+": plan from the cluster's release, karpgen upgrade "+p.Env+" --from "+v+" --to "+p.To))
	}
	if p.live.Knows(live.PartAuth) && p.live.AuthMode == "CONFIG_MAP" && needsAccessEntries(target) {
		p.Blockers = append(p.Blockers, block("upgrade/auth-mode", "the capture says cluster "+n.Cluster+" is in CONFIG_MAP authentication mode, where EKS refuses the access entries the target's template creates for its node roles and the IAM stack rolls back: "+
			escape.ShellJoin("aws", "eks", "update-cluster-config", "--region", n.Region, "--name", n.Cluster, "--access-config", "authenticationMode=API_AND_CONFIG_MAP")+
			" (aws-auth keeps working; the change cannot be undone), or set karpenter.nodeAccess: \"awsAuth\" in the profile"))
	}
	changes, ok, err := p.live.Preview(target, p.bundles[len(p.bundles)-1].Files[model.FileCloudFormation])
	if err != nil {
		return err
	}
	if !ok {
		what := "no stack " + n.Stack
		if st := p.live.Stacks[n.Stack]; st != nil && st.Exists {
			what = "stack " + n.Stack + " but not its template (" + escape.ShellJoin("aws", "cloudformation", "get-template", "--region", n.Region, "--stack-name", n.Stack, "--template-stage", "Original") + ")"
		}
		p.Assumes = append(p.Assumes, "the capture holds "+what+": the deploy is not previewed")
		return nil
	}
	st := p.live.Stacks[n.Stack]
	p.Stack = &StackPreview{Name: n.Stack, Exists: st.Exists, Changes: changes}
	if ok, why := cfnpreview.Updatable(st.Status); st.Exists && !ok {
		p.Blockers = append(p.Blockers, block("upgrade/stack-state", "stack "+n.Stack+" is in status "+st.Status+": "+why))
	}
	var replaced []string
	for _, c := range cfnpreview.Harmful(changes) {
		if replacesControllerPolicy(c, n) {
			replaced = append(replaced, c.Name)
			continue
		}
		msg := "deploying the target's IAM to stack " + n.Stack + " would " + verb(c.Action) + " " + c.Logical
		if c.Name != "" {
			msg += " (" + c.Name + ")"
		}
		msg += ": " + c.Why
		if c.Harm != "" && c.Action != cfnpreview.Fails {
			msg += "; " + c.Harm
		}
		msg += ". " + adoptHint(c, n, p.live.Associations)
		p.Blockers = append(p.Blockers, block("upgrade/stack-harm", msg))
	}
	p.Retirement = append(p.Retirement, replacedPolicies(target, replaced)...)
	return nil
}

// replacesControllerPolicy says whether a change deletes a controller
// policy of upstream's getting-started stack that the target's template,
// deployed to that stack in place, succeeds: its own controller
// policies, attached to the adopted controller role the old one was
// attached to. CloudFormation creates them before it deletes the old one
// (the update's cleanup), so the controller never goes without, as in
// upstream's own update of the stack.
func replacesControllerPolicy(c cfnpreview.Change, n model.Names) bool {
	return c.Action == cfnpreview.Delete && c.Type == "AWS::IAM::ManagedPolicy" && iampolicy.UpstreamControllerPolicy(c.Logical) &&
		n.ControllerRoleExists && n.Stack == model.GettingStartedStack(n.Cluster)
}

// replacedPolicies says what the in-place update does with the
// getting-started stack's controller policies, and what still names
// them: eksctl attached them to its role by ARN, and its config would
// attach them again.
func replacedPolicies(target *model.Env, replaced []string) []string {
	if len(replaced) == 0 {
		return nil
	}
	n := target.Names
	var arns []string
	for _, cp := range iampolicy.ControllerPolicies(target.Facts, n, target.IAMGates) {
		arns = append(arns, n.PolicyARN(cp.Name))
	}
	what, them := "controller policy "+replaced[0]+" gives", "it"
	if len(replaced) > 1 {
		what, them = "controller policies "+strings.Join(replaced, ", ")+" give", "them"
	}
	return []string{"The deploy updates stack " + n.Stack + " in place, as upstream's upgrade does: its " + what + " way to the target's, which the template attaches to the adopted role " + n.ControllerRole +
		"; CloudFormation deletes " + them + " only after those exist. eksctl's config names " + them + " in permissionPolicyARNs (podIdentityAssociations) or attachPolicyARNs (iamServiceAccounts): put the target's there instead (" +
		strings.Join(arns, ", ") + ") and run eksctl update podidentityassociation -f CONFIG or eksctl update iamserviceaccount -f CONFIG once the stack is updated, or the next eksctl update fails on a policy that no longer exists"}
}

func verb(a cfnpreview.Action) string {
	if a == cfnpreview.Fails {
		return "fail on"
	}
	return string(a)
}

// adoptHint is how a profile keeps a resource out of the bundle's
// stack: adopting it by name, so that the bundle deploys to a stack of
// its own; the service account's Pod Identity association, with the
// role it binds, by its ID.
func adoptHint(c cfnpreview.Change, n model.Names, associations []live.Association) string {
	name := strconv.Quote(c.Name)
	switch {
	case c.Type == "AWS::EKS::PodIdentityAssociation":
		for _, a := range associations {
			if a.Namespace == n.Namespace && a.ServiceAccount == n.ServiceAccount {
				return "Adopt it with the role it binds (karpenter.existingControllerRole: " + strconv.Quote(model.RoleNameOf(a.RoleARN)) +
					", karpenter.existingPodIdentityAssociation: " + strconv.Quote(a.ID) + "): the bundle then attaches the controller policies to that role and creates no association"
			}
		}
	case c.Type == "AWS::SQS::Queue":
		return "Adopt it (karpenter.existingInterruptionQueue: " + name + ") and the bundle deploys to a stack of its own"
	case c.Type == "AWS::IAM::Role" && c.Logical == "KarpenterControllerRole":
		return "Adopt it (karpenter.existingControllerRole: " + name + ") and the bundle deploys to a stack of its own"
	case c.Type == "AWS::IAM::Role" && c.Logical == "KarpenterNodeRole":
		return "Adopt it (karpenter.existingNodeRole: " + name + ") and the bundle deploys to a stack of its own"
	case c.Type == "AWS::SQS::QueuePolicy" || c.Type == "AWS::Events::Rule":
		return "Adopt the queue (karpenter.existingInterruptionQueue) and the bundle deploys to a stack of its own"
	}
	return "Change the profile so that its template keeps it, or adopt what the stack holds so that the bundle deploys to a stack of its own"
}

// assumptions are what a plan without a capture takes the cluster to
// hold, said once.
func (p *Plan) assumptions(target *model.Env) []string {
	n := target.Names
	out := []string{"stack " + n.Stack + " holds only what the target's template names, or does not exist yet (give --state to preview the deploy)"}
	if needsAccessEntries(target) {
		out = append(out, "the cluster's authentication mode reads access entries (API_AND_CONFIG_MAP or API)")
	}
	switch app := target.Application; {
	case app != nil && p.versions[0].Major == 0:
		out = append(out, "the controller is a Helm release today, which Argo CD's Application "+app.Namespace+"/"+app.Name+" takes over")
	case app != nil:
		out = append(out, "Argo CD's Application "+app.Namespace+"/"+app.Name+" deploys the controller now, and no Helm release is left")
	default:
		out = append(out, "the controller is the Helm release karpenter in namespace "+n.Namespace)
	}
	return out
}

// needsAccessEntries says the target's template creates access entries:
// for the node roles it creates, when nodes join by access entry.
func needsAccessEntries(e *model.Env) bool {
	return e.Profile.Karpenter.NodeAccess == profile.AccessEntry && slices.ContainsFunc(e.Names.NodeRoles(), func(r model.NodeRole) bool { return !r.Exists })
}

// fromHelm says whether the controller is a Helm release now: the
// capture's release list, else whether it runs a 0.x release (Argo CD
// takes over at 1.0).
func (p *Plan) fromHelm(ns string) bool {
	if p.live.Knows(live.PartHelm) {
		_, ok := p.live.Release("karpenter", ns)
		return ok
	}
	return p.versions[0].Major == 0
}
