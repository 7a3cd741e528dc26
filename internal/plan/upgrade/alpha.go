package upgrade

import (
	"fmt"
	"strings"

	"github.com/karpgen/karpgen/generators"
	"github.com/karpgen/karpgen/internal/facts"
	"github.com/karpgen/karpgen/internal/iam/iampolicy"
	"github.com/karpgen/karpgen/internal/model"
	"github.com/karpgen/karpgen/internal/util/escape"
)

// The move from the v1alpha5 APIs (Provisioner, AWSNodeTemplate, Machine)
// follows upstream's v1beta1 migration guide: 0.32 serves both APIs, so
// the objects are converted and the nodes rolled while both run; then
// the v1beta1 minors up to the last one, and 1.0 as from any v1beta1
// start. karpgen renders no v1alpha5 or v1beta1 bundle: these hops carry
// the policies and steps upstream's guides give, filled in with the
// environment's names.

// FromAlpha reports whether the move starts on the v1alpha5 APIs.
func (p *Plan) FromAlpha() bool { return facts.Alpha.Holds(p.versions[0]) }

// betaPolicies are the v1beta1 controller policies the move attaches for
// the controllers before 1.0 (none unless it starts on v1alpha5), made
// once by New.
func (p *Plan) betaPolicies() []iampolicy.ControllerPolicy { return p.beta }

// makeBetaPolicies makes them for the target's names.
func (p *Plan) makeBetaPolicies() error {
	if !p.FromAlpha() {
		return nil
	}
	for _, r := range iampolicy.BetaReleases {
		cp, err := iampolicy.BetaPolicy(r, p.envs[len(p.envs)-1].Names)
		if err != nil {
			return err
		}
		p.beta = append(p.beta, cp)
	}
	return nil
}

// betaPolicy is the v1beta1 controller policy the move attaches for the
// release, if any.
func (p *Plan) betaPolicy(v facts.Version) (iampolicy.ControllerPolicy, bool) {
	for i, cp := range p.betaPolicies() {
		if iampolicy.BetaReleases[i] == v.String() {
			return cp, true
		}
	}
	return iampolicy.ControllerPolicy{}, false
}

// zeroHop fills in a hop to a 0.x release: what upstream's guides say of
// it, for karpgen renders neither side.
func (p *Plan) zeroHop(h *Hop, from, to facts.Version) {
	cp, attaches := p.betaPolicy(to)
	if attaches {
		h.IAM.PoliciesAdded = []string{cp.Name}
	}
	switch {
	case facts.Alpha.Holds(to):
		h.CRDs.Added = []string{"NodePool", "NodeClaim", "EC2NodeClass"}
		h.Notes = []string{
			"0.32 serves the v1beta1 APIs beside v1alpha5: the Provisioners and AWSNodeTemplates are converted to NodePools and EC2NodeClasses while both run, and the Provisioners' nodes are replaced by NodePool nodes (the karpenter.sh/legacy taint keeps new pods off the Provisioners).",
			"0.32 reads settings.clusterName and settings.interruptionQueue beside settings.aws.*, and the EC2NodeClass names the node role: Karpenter makes the instance profiles from 0.32 on.",
			"The v1beta1 controller policy " + cp.Name + " (the migration guide's) joins the v1alpha5 policy, which stays until no Machine is left.",
		}
	case facts.Alpha.Holds(from):
		h.IAM.PoliciesRemoved = []string{"the v1alpha5 controller policy"}
		h.CRDs.Changed = []string{"0.33 and later serve no v1alpha5 API: the Provisioner, Machine and AWSNodeTemplate CRDs are deleted after the hop", "0.34 adds disruption budgets to the NodePool CRD"}
		h.Notes = []string{
			"0.33 drops the v1alpha5 APIs, settings.aws.* and the karpenter-global-settings ConfigMap, and no longer accepts the karpenter.sh/provisioner-name label in NodePools or in pods' selectors and affinities: pods that select it select karpenter.sh/nodepool before the hop.",
			"0.33 tags spot instance requests, which the 0.32 policy does not allow: " + cp.Name + " (0.37's getting-started policy) is attached before the hop.",
			"0.33 turns drift on and the webhooks off by default (CEL validation needs Kubernetes 1.25+; the plan keeps the webhooks on for 1.0's conversion); 0.34 disrupts at most 10% of a NodePool's nodes at once unless its budgets say otherwise.",
		}
	default:
		h.Notes = []string{"Within the v1beta1 minors: move to the latest 0.37 patch, with the webhooks enabled, before 1.0."}
	}
	if p.envs[len(p.envs)-1].Application != nil {
		h.Notes = append(h.Notes, "Argo CD delivers the environment from 1.0 on, once the profile's commit is synced; karpgen renders no 0.x bundle, so this hop upgrades the Helm release the cluster runs now. Where an Argo CD Application of your own delivers that release, make the hop's changes (chart version, values) in it instead, with its automated sync off until the hop is done.")
	}
}

// chartVersion is the chart version of a release: upstream's charts
// before 0.35 carry a "v".
func chartVersion(v facts.Version) string {
	if v.Major == 0 && v.Minor < 35 {
		return "v" + v.String()
	}
	return v.String()
}

// upstreamCRDs are the v1beta1 CRDs' files in upstream's tree.
var upstreamCRDs = []string{"karpenter.sh_nodepools.yaml", "karpenter.sh_nodeclaims.yaml", "karpenter.k8s.aws_ec2nodeclasses.yaml"}

// legacyTaint keeps new pods off the Provisioners while their nodes are
// replaced, as the migration guide taints them.
const legacyTaint = `{"key":"karpenter.sh/legacy","value":"true","effect":"NoSchedule"}`

// alphaSteps are the steps on 0.32, from the v1alpha5 start to a
// cluster without Provisioners, AWSNodeTemplates and Machines.
func (p *Plan) alphaSteps(add func(title, command, ifFails string), dir string) {
	sh := escape.ShellJoin
	target := p.envs[len(p.envs)-1]
	n := target.Names
	ns := n.Namespace
	var v facts.Version
	for _, r := range p.versions[1:] {
		if facts.Alpha.Holds(r) {
			v = r
		}
	}
	if v == (facts.Version{}) {
		// The move starts on the latest 0.32 patch.
		v = p.versions[0]
	}
	if cp, ok := p.betaPolicy(v); ok {
		add("Attach the v1beta1 controller policy beside the v1alpha5 one",
			p.attach(cp, dir), "")
	}
	var urls []string
	for _, f := range upstreamCRDs {
		urls = append(urls, "-f", "https://raw.githubusercontent.com/aws/karpenter-provider-aws/v"+v.String()+"/pkg/apis/crds/"+f)
	}
	add(fmt.Sprintf("Apply the %s CRDs: NodePool, NodeClaim and EC2NodeClass, served beside Provisioner, Machine and AWSNodeTemplate", v),
		sh(append([]string{"kubectl", "apply"}, urls...)...), "")
	if v != p.versions[0] {
		// 0.32's chart reads settings.aws.clusterName and
		// settings.aws.interruptionQueueName before the new keys, and
		// the values reused keep 0.31's: both are set to the profile's.
		set := []string{
			"--set", "settings.clusterName=" + n.Cluster, "--set", "settings.aws.clusterName=" + n.Cluster,
			"--set", "settings.interruptionQueue=" + n.Queue, "--set", "settings.aws.interruptionQueueName=" + n.Queue,
		}
		add(fmt.Sprintf("Upgrade the controller to %s, which serves both APIs", v),
			sh(append(append([]string{"helm", "upgrade", "karpenter", generators.ChartRef("karpenter"), "--version", chartVersion(v), "--namespace", ns}, p.hopValues()...), set...)...)+
				" && "+sh("kubectl", "-n", ns, "rollout", "status", "deployment/karpenter"), "")
	}
	// karpenter-convert reads YAML documents, not the List `kubectl get
	// -o yaml` prints: the objects are written one document each. It
	// writes a placeholder for the node role; envsubst fills in that
	// variable only, so that a user data script keeps its own.
	each := func(resource, file string) string {
		return "for o in $(" + sh("kubectl", "get", resource, "-o", "name") + `); do echo ---; kubectl get "$o" -o yaml; done > ` + file
	}
	add("Convert the AWSNodeTemplates and Provisioners to EC2NodeClasses and NodePools, and apply them",
		strings.Join([]string{
			sh("go", "install", "github.com/aws/karpenter/tools/karpenter-convert/cmd/karpenter-convert@release-v0.32.x"),
			each("awsnodetemplates.karpenter.k8s.aws", "awsnodetemplates.yaml") + " && " +
				sh("karpenter-convert", "-f", "awsnodetemplates.yaml") + " | KARPENTER_NODE_ROLE=" + escape.Shell(n.NodeRole) + " envsubst '$KARPENTER_NODE_ROLE' > ec2nodeclasses-v1beta1.yaml",
			each("provisioners.karpenter.sh", "provisioners.yaml") + " && " + sh("karpenter-convert", "-f", "provisioners.yaml") + " > nodepools-v1beta1.yaml",
			sh("kubectl", "apply", "-f", "ec2nodeclasses-v1beta1.yaml", "-f", "nodepools-v1beta1.yaml"),
		}, "\n"),
		"read both files before applying them: each EC2NodeClass gets the node role "+n.NodeRole+" (set another where the profile gives a class a role of its own), and the NodePools keep the requirements v1alpha5 defaulted. They keep the Provisioners' and AWSNodeTemplates' names, which karpgen import keeps too: the v1 objects applied at the end replace them in place")
	add("Taint the Provisioners, so that new pods go to the NodePools",
		`for p in $(kubectl get provisioners.karpenter.sh -o name); do kubectl get "$p" -o json | jq '.spec.taints = ((.spec.taints // []) + [`+legacyTaint+`] | unique)' | kubectl replace -f -; done`, "")
	add("Replace the Provisioners' nodes one at a time (Karpenter drains each within the PodDisruptionBudgets; NodePool nodes take the pods)",
		`for node in $(kubectl get nodes -l karpenter.sh/provisioner-name -o name); do kubectl delete "$node" --wait; done`,
		"a node that stays is one whose drain a PodDisruptionBudget or a karpenter.sh/do-not-evict pod holds: resolve that, and the loop goes on when run again")
	add("Check that no Machine is left",
		sh("kubectl", "get", "machines.karpenter.sh", "-o", "name"),
		"the list must be empty: run the previous step again until no node carries karpenter.sh/provisioner-name")
	add("Delete the Provisioners and AWSNodeTemplates",
		sh("kubectl", "delete", "provisioners.karpenter.sh", "--all")+" && "+sh("kubectl", "delete", "awsnodetemplates.karpenter.k8s.aws", "--all"), "")
	add("Find what the v1alpha5 install leaves: its instance profile and controller policy",
		sh("aws", "iam", "list-instance-profiles-for-role", "--role-name", n.NodeRole, "--query", "InstanceProfiles[].InstanceProfileName")+"\n"+
			sh("aws", "iam", "list-attached-role-policies", "--role-name", n.ControllerRole, "--query", "AttachedPolicies[].PolicyName"),
		fmt.Sprintf("the getting-started guide's were KarpenterNodeInstanceProfile-%[1]s and KarpenterControllerPolicy-%[1]s in stack %[2]s, %[5]s; any other v1alpha5 instance profile or policy goes by hand: %[3]s, %[4]s",
			n.Cluster, model.GettingStartedStack(n.Cluster),
			sh("aws", "iam", "remove-role-from-instance-profile", "--instance-profile-name", "NAME", "--role-name", n.NodeRole)+" && "+sh("aws", "iam", "delete-instance-profile", "--instance-profile-name", "NAME"),
			sh("aws", "iam", "detach-role-policy", "--role-name", n.ControllerRole, "--policy-arn", n.PolicyARN("NAME")), gettingStartedFate(n)))
}

// gettingStartedFate says what the plan's deploy does to the
// getting-started stack's own IAM.
func gettingStartedFate(n model.Names) string {
	if n.OwnStack {
		return "which the bundle's own stack " + n.Stack + " leaves as they are (that stack holds what the profile adopts): detach and delete them once the target controller runs"
	}
	return "which the next step's deploy replaces with the bundle's IAM"
}

// attach is the command that creates a managed policy from the plan's
// file of it and attaches it to the controller role (a transition policy,
// a v1beta1 one).
func (p *Plan) attach(cp iampolicy.ControllerPolicy, dir string) string {
	n := p.envs[len(p.envs)-1].Names
	return escape.ShellJoin("aws", "iam", "create-policy", "--policy-name", cp.Name, "--policy-document", "file://"+dir+"/iam/"+cp.File) +
		" && " + escape.ShellJoin("aws", "iam", "attach-role-policy", "--role-name", n.ControllerRole, "--policy-arn", n.PolicyARN(cp.Name))
}

// detach is the command that detaches managed policies from the
// controller role and deletes them, one line each.
func (p *Plan) detach(policies []iampolicy.ControllerPolicy) string {
	n := p.envs[len(p.envs)-1].Names
	var cmds []string
	for _, cp := range policies {
		arn := n.PolicyARN(cp.Name)
		cmds = append(cmds, escape.ShellJoin("aws", "iam", "detach-role-policy", "--role-name", n.ControllerRole, "--policy-arn", arn)+
			" && "+escape.ShellJoin("aws", "iam", "delete-policy", "--policy-arn", arn))
	}
	return strings.Join(cmds, "\n")
}

// betaHopSteps are the steps of a hop to the last v1beta1 minor: its
// policy when the move attaches one, its CRDs, its controller with the
// webhooks 1.0's conversion needs, and after a v1alpha5 start the
// v1alpha5 CRDs no release serves any more.
func (p *Plan) betaHopSteps(add func(title, command, ifFails string), v facts.Version, dir string) {
	sh := escape.ShellJoin
	ns := p.envs[len(p.envs)-1].Names.Namespace
	if cp, ok := p.betaPolicy(v); ok {
		add(fmt.Sprintf("Attach the v1beta1 controller policy of %s (0.33 and later tag spot instance requests)", v), p.attach(cp, dir), "")
	}
	var crds []string
	for _, c := range []string{"nodepools.karpenter.sh", "nodeclaims.karpenter.sh", "ec2nodeclasses.karpenter.k8s.aws"} {
		crds = append(crds, sh("kubectl", "label", "crd", c, "app.kubernetes.io/managed-by=Helm", "--overwrite")+" && "+
			sh("kubectl", "annotate", "crd", c, "meta.helm.sh/release-name=karpenter-crd", "meta.helm.sh/release-namespace="+ns, "--overwrite"))
	}
	// The conversion webhooks 1.0 serves v1beta1 through, and a rollback
	// needs, are the CRD chart's: set as upstream's v1 migration guide
	// sets them (the chart's keys from 0.33 to 0.37), never left to a
	// release whose values an upgrade without values would reuse.
	add(fmt.Sprintf("Upgrade the CRDs to %s, with their conversion webhooks pointing at the controller", v),
		sh("helm", "upgrade", "--install", "karpenter-crd", generators.ChartRef("karpenter-crd"), "--version", chartVersion(v), "--namespace", ns,
			"--set", "webhook.enabled=true", "--set", "webhook.serviceName=karpenter", "--set", "webhook.serviceNamespace="+ns, "--set", "webhook.port=8443"),
		"\"invalid ownership metadata\" means the CRDs were applied by hand or by the karpenter chart: let the karpenter-crd release adopt them, then run the step again: "+strings.Join(crds, " && "))
	add(fmt.Sprintf("Upgrade the v1beta1 controller to %s with its webhooks enabled", v),
		sh(append(append([]string{"helm", "upgrade", "karpenter", generators.ChartRef("karpenter"), "--version", chartVersion(v), "--namespace", ns}, p.hopValues()...), "--set", "webhook.enabled=true")...)+
			" && "+sh("kubectl", "-n", ns, "rollout", "status", "deployment/karpenter"), "")
	if p.FromAlpha() {
		add("Delete the v1alpha5 CRDs, which no release serves any more",
			sh("kubectl", "delete", "crd", "provisioners.karpenter.sh", "machines.karpenter.sh", "awsnodetemplates.karpenter.k8s.aws"), "")
	}
}
