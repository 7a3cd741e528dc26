package doctor

import (
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"

	"github.com/karpgen/karpgen/generators"
	"github.com/karpgen/karpgen/internal/diag"
	"github.com/karpgen/karpgen/internal/escape"
	"github.com/karpgen/karpgen/internal/facts"
	"github.com/karpgen/karpgen/internal/iamdoc"
	"github.com/karpgen/karpgen/internal/model"
	"github.com/karpgen/karpgen/internal/profile"
)

// Check is one comparison of the catalog (docs/doctor.md).
type Check struct {
	ID       string
	Severity diag.Severity
	Summary  string
	// Files are the captured files it reads; without any of them it is
	// skipped.
	Files func(e *model.Env) []string
	run   func(c *checkRun)
}

// Finding is one difference between what should be and what is.
type Finding struct {
	Check    string        `json:"check"`
	Severity diag.Severity `json:"severity"`
	Resource string        `json:"resource"`
	Expected string        `json:"expected"`
	Found    string        `json:"found"`
	Fix      string        `json:"fix"`
}

// Result is one check's outcome.
type Result struct {
	Check   string `json:"check"`
	Status  string `json:"status"` // ok, failed, skipped, not-checked, not-applicable
	Skipped string `json:"skipped,omitempty"`
	// NotChecked says why a captured file says nothing of the account:
	// the capture ran without credentials, was denied, or lacked a tool.
	NotChecked string    `json:"notChecked,omitempty"`
	Findings   []Finding `json:"findings"`
}

// Report is a doctor run.
type Report struct {
	Env     string   `json:"env"`
	Results []Result `json:"results"`
}

// Incomplete reports a capture that checked nothing of a kind it should:
// a check was not checked (credentials, access, tools), or no check ran
// at all (an empty or foreign folder).
func (r *Report) Incomplete() bool {
	ran := false
	for _, res := range r.Results {
		switch res.Status {
		case "not-checked":
			return true
		case "ok", "failed":
			ran = true
		}
	}
	return !ran
}

// Errors reports whether a check found an error.
func (r *Report) Errors() bool {
	for _, res := range r.Results {
		for _, f := range res.Findings {
			if f.Severity == diag.Error {
				return true
			}
		}
	}
	return false
}

type checkRun struct {
	e        *model.Env
	s        *State
	check    *Check
	findings []Finding
	err      error
	// notChecked is why a file the check read holds no answer.
	notChecked string
}

// captureFailures are the error codes of a capture that could not look:
// no or expired credentials, access denied, a tool that is missing. A
// file holding one says nothing of the account, so its check is not
// checked rather than failed (its fix would redeploy everything).
var captureFailures = []string{
	"ExpiredToken", "ExpiredTokenException", "AccessDenied", "AccessDeniedException", "UnauthorizedOperation",
	"UnrecognizedClientException", "InvalidClientTokenId", "Forbidden", "Unauthorized", "CommandFailed",
}

func (c *checkRun) report(resource, expected, found, fix string) {
	c.findings = append(c.findings, Finding{Check: c.check.ID, Severity: c.check.Severity, Resource: resource, Expected: expected, Found: found, Fix: fix})
}

// load reads a file the check needs; false when the check cannot go on
// (the failure is then a finding or a state error).
func (c *checkRun) load(file string, v any, resource, expected, fix string) bool {
	_, failed, err := c.s.read(file, v)
	switch {
	case err != nil:
		c.err = err
		return false
	case failed != nil && slices.Contains(captureFailures, failed.Code):
		c.notChecked = file + ": " + failed.Code + ": " + failed.Message
		return false
	case failed != nil:
		c.report(resource, expected, failed.Code+": "+failed.Message, fix)
		return false
	}
	return true
}

// Run runs every check on a captured folder. The error is for a folder
// that cannot be read as a capture.
func Run(e *model.Env, s *State) (*Report, error) {
	r := &Report{Env: e.Name}
	for _, ch := range Catalog() {
		res := Result{Check: ch.ID, Findings: []Finding{}}
		if len(ch.Files(e)) == 0 {
			res.Status = "not-applicable"
			r.Results = append(r.Results, res)
			continue
		}
		var missing []string
		for _, f := range ch.Files(e) {
			found, _, err := s.read(f, &json.RawMessage{})
			if err != nil {
				return nil, err
			}
			if !found {
				missing = append(missing, f)
			}
		}
		if len(missing) > 0 {
			res.Status, res.Skipped = "skipped", strings.Join(missing, ", ")+" not captured"
			r.Results = append(r.Results, res)
			continue
		}
		c := &checkRun{e: e, s: s, check: ch}
		ch.run(c)
		if c.err != nil {
			return nil, c.err
		}
		res.Findings = append(res.Findings, c.findings...)
		res.Status = "ok"
		switch {
		case len(c.findings) > 0:
			res.Status = "failed"
		case c.notChecked != "":
			res.Status, res.NotChecked = "not-checked", c.notChecked
		}
		r.Results = append(r.Results, res)
	}
	return r, nil
}

// wantCRDs are the CRDs the profile's minor installs that the profile
// needs: NodePool, NodeClaim and EC2NodeClass always, NodeOverlay and
// CapacityBuffer when it has some.
func (c *checkRun) wantCRDs() []facts.CRD {
	var out []facts.CRD
	for _, crd := range c.e.Facts.CRDsOf() {
		switch {
		case crd.Kind == "NodeOverlay" && len(c.e.Profile.NodeOverlays) == 0:
		case crd.Kind == "CapacityBuffer" && len(c.e.Profile.CapacityBuffers) == 0:
		default:
			out = append(out, crd)
		}
	}
	return out
}

// installCRDs is the command that installs the minor's CRDs.
func (c *checkRun) installCRDs() string {
	return escape.ShellJoin("helm", "upgrade", "--install", "karpenter-crd", "oci://public.ecr.aws/karpenter/karpenter-crd",
		"--version", c.e.Version.String(), "--namespace", c.e.Names.Namespace)
}

func files(names ...string) func(*model.Env) []string {
	return func(*model.Env) []string { return names }
}

// Catalog returns the checks, in the order they run.
func Catalog() []*Check { return catalog }

var catalog = []*Check{
	{
		ID: "doctor/kubernetes-version", Severity: diag.Error, Files: files("eks-cluster.json"),
		Summary: "The cluster runs the profile's Kubernetes version.",
		run: func(c *checkRun) {
			var cl eksCluster
			n := c.e.Names
			if !c.load("eks-cluster.json", &cl, "cluster "+n.Cluster, "an EKS cluster", "check cluster.name and cluster.region in the profile") {
				return
			}
			if want := c.e.Profile.Cluster.KubernetesVersion; cl.Cluster.Version != want {
				c.report("cluster "+n.Cluster, "Kubernetes "+want, "Kubernetes "+cl.Cluster.Version,
					fmt.Sprintf("set cluster.kubernetesVersion: %q in the profile and render, or upgrade the cluster", cl.Cluster.Version))
			}
		},
	},
	{
		ID: "doctor/subnets", Severity: diag.Error, Files: files("ec2-subnets.json"),
		Summary: "Every zone of every pool has a subnet its node class selects (tags, with \"*\" for any value, or id), with free addresses.",
		run: func(c *checkRun) {
			var sn ec2Subnets
			if !c.load("ec2-subnets.json", &sn, "subnets", "the VPC's subnets", "") {
				return
			}
			p := c.e.Profile
			for _, pool := range sortedKeys(p.NodePools) {
				np := p.NodePools[pool]
				terms := p.NodeClasses[np.NodeClass].SubnetSelectorTerms
				byZone := map[string]int{}
				for _, s := range sn.Subnets {
					if matchesTerms(terms, s.SubnetID, "", s.Tags) {
						byZone[s.AvailabilityZone] += s.AvailableIPAddressCount
					}
				}
				zones := np.Zones
				if len(zones) == 0 {
					if len(byZone) == 0 {
						c.report("node pool "+pool, "a subnet matching "+termsText(terms), "none",
							"tag the node subnets: "+tagFix(terms, "ec2 create-tags --resources <subnet-id>"))
					}
					continue
				}
				for _, z := range zones {
					free, ok := byZone[z]
					switch {
					case !ok:
						c.report("node pool "+pool+" zone "+z, "a subnet in "+z+" matching "+termsText(terms), "none",
							"tag a subnet of "+z+": "+tagFix(terms, "ec2 create-tags --resources <subnet-id>"))
					case free == 0:
						c.report("node pool "+pool+" zone "+z, "free addresses in the matching subnets of "+z, "0 free addresses",
							"add a subnet (or a secondary CIDR) in "+z+" and tag it")
					}
				}
			}
		},
	},
	{
		ID: "doctor/security-groups", Severity: diag.Error, Files: files("ec2-security-groups.json"),
		Summary: "Every node class selects at least one security group (tags, id or name).",
		run: func(c *checkRun) {
			var sg ec2SecurityGroups
			if !c.load("ec2-security-groups.json", &sg, "security groups", "the VPC's security groups", "") {
				return
			}
			for _, class := range sortedKeys(c.e.Profile.NodeClasses) {
				terms := c.e.Profile.NodeClasses[class].SecurityGroupSelectorTerms
				found := false
				for _, g := range sg.SecurityGroups {
					found = found || matchesTerms(terms, g.GroupID, g.GroupName, g.Tags)
				}
				if !found {
					c.report("node class "+class, "a security group matching "+termsText(terms), "none",
						"tag the cluster's node security group: "+tagFix(terms, "ec2 create-tags --resources <sg-id>"))
				}
			}
		},
	},
	{
		ID: "doctor/node-role", Severity: diag.Error, Files: files("iam-node-role.json", "iam-node-role-policies.json"),
		Summary: "The node role exists, trusts EC2 and has the managed policies of the profile's Karpenter minor.",
		run: func(c *checkRun) {
			n := c.e.Names
			fix := c.deployIAM()
			if n.NodeRoleExists {
				fix = "attach the policies to the existing role (aws iam attach-role-policy --role-name " + escape.Shell(n.NodeRole) + " --policy-arn <arn>)"
			}
			var role iamRole
			if !c.load("iam-node-role.json", &role, "role "+n.NodeRole, "the node role", fix) {
				return
			}
			if !trusts(role.Role.AssumeRolePolicyDocument, "Service", n.EC2Principal) {
				c.report("role "+n.NodeRole, "a trust policy for "+n.EC2Principal, compact(role.Role.AssumeRolePolicyDocument), "update it to iam/node-trust-policy.json")
			}
			var att iamAttached
			if !c.load("iam-node-role-policies.json", &att, "role "+n.NodeRole, "its attached policies", fix) {
				return
			}
			var have []string
			for _, p := range att.AttachedPolicies {
				have = append(have, p.PolicyArn)
			}
			for _, name := range c.e.Facts.NodeRolePolicies {
				if arn := n.ManagedPolicyARN(name); !slices.Contains(have, arn) {
					c.report("role "+n.NodeRole, arn+" attached", strings.Join(have, ", "),
						escape.ShellJoin("aws", "iam", "attach-role-policy", "--role-name", n.NodeRole, "--policy-arn", arn))
				}
			}
		},
	},
	{
		ID: "doctor/node-access", Severity: diag.Error,
		Files: func(e *model.Env) []string {
			if e.Profile.Karpenter.NodeAccess == profile.AWSAuth {
				return []string{"k8s-aws-auth.json"}
			}
			return []string{"eks-access-entry-node.json"}
		},
		Summary: "The node role may join the cluster: an access entry of the right type (EC2_LINUX, or EC2_WINDOWS when a pool runs Windows).",
		run: func(c *checkRun) {
			n := c.e.Names
			if c.e.Profile.Karpenter.NodeAccess == profile.AWSAuth {
				var cm struct {
					Data map[string]string `json:"data"`
				}
				if c.load("k8s-aws-auth.json", &cm, "configmap kube-system/aws-auth", "a mapping of "+n.NodeRoleARN, "add iam/aws-auth-maproles.yaml to the aws-auth ConfigMap") &&
					!strings.Contains(cm.Data["mapRoles"], n.NodeRoleARN) {
					c.report("configmap kube-system/aws-auth", "a mapping of "+n.NodeRoleARN, "none", "add iam/aws-auth-maproles.yaml to the aws-auth ConfigMap")
				}
				return
			}
			want := generators.AccessEntryType(c.e.Windows)
			fix := escape.ShellJoin("aws", "eks", "create-access-entry", "--region", n.Region, "--cluster-name", n.Cluster, "--principal-arn", n.NodeRoleARN, "--type", want)
			var ae eksAccessEntry
			if !c.load("eks-access-entry-node.json", &ae, "access entry "+n.NodeRoleARN, "an access entry of type "+want, fix) {
				return
			}
			if ae.AccessEntry.Type != want {
				c.report("access entry "+n.NodeRoleARN, "type "+want, "type "+ae.AccessEntry.Type,
					"an access entry's type cannot change: delete it (aws eks delete-access-entry ...) and "+fix)
			}
		},
	},
	{
		ID: "doctor/controller-trust", Severity: diag.Error,
		Files: func(e *model.Env) []string {
			if e.Profile.Karpenter.Auth == profile.AuthIRSA {
				return []string{"iam-controller-role.json", "iam-oidc-providers.json"}
			}
			return []string{"iam-controller-role.json", "eks-pod-identity-associations.json", "eks-addons.json"}
		},
		Summary: "The controller role trusts the auth mode: the cluster's OIDC provider for IRSA; EKS Pod Identity with an association and the agent add-on.",
		run: func(c *checkRun) {
			n := c.e.Names
			var role iamRole
			if !c.load("iam-controller-role.json", &role, "role "+n.ControllerRole, "the controller role", c.deployIAM()) {
				return
			}
			if c.e.Profile.Karpenter.Auth == profile.AuthIRSA {
				if !trusts(role.Role.AssumeRolePolicyDocument, "Federated", n.OIDCProviderARN) {
					c.report("role "+n.ControllerRole, "trust of "+n.OIDCProviderARN, compact(role.Role.AssumeRolePolicyDocument), "update it to iam/controller-trust-policy.json")
				}
				var ps iamOIDCProviders
				if !c.load("iam-oidc-providers.json", &ps, "OIDC providers", "the cluster's provider", "") {
					return
				}
				found := false
				for _, p := range ps.OpenIDConnectProviderList {
					found = found || p.Arn == n.OIDCProviderARN
				}
				if !found {
					c.report("OIDC provider", n.OIDCProviderARN, "absent", "eksctl utils associate-iam-oidc-provider --cluster "+n.Cluster+" --approve")
				}
				return
			}
			if !trusts(role.Role.AssumeRolePolicyDocument, "Service", model.PodIdentityPrincipal) {
				c.report("role "+n.ControllerRole, "trust of "+model.PodIdentityPrincipal, compact(role.Role.AssumeRolePolicyDocument), "update it to iam/controller-trust-policy.json")
			}
			var as eksPodIdentityAssociations
			if c.load("eks-pod-identity-associations.json", &as, "pod identity associations", "an association", "") {
				found := false
				for _, a := range as.Associations {
					found = found || a.Namespace == n.Namespace && a.ServiceAccount == n.ServiceAccount
				}
				if !found {
					c.report("pod identity association", n.Namespace+"/"+n.ServiceAccount, "absent",
						escape.ShellJoin("aws", "eks", "create-pod-identity-association", "--region", n.Region, "--cli-input-json", "file://"+c.file(model.FilePodIdentity)))
				}
			}
			var ad eksAddons
			if c.load("eks-addons.json", &ad, "add-ons", "eks-pod-identity-agent", "") && !slices.Contains(ad.Addons, "eks-pod-identity-agent") {
				c.report("add-on eks-pod-identity-agent", "installed", "absent", escape.ShellJoin("aws", "eks", "create-addon", "--region", n.Region, "--cluster-name", n.Cluster, "--addon-name", "eks-pod-identity-agent"))
			}
		},
	},
	{
		ID: "doctor/controller-policy", Severity: diag.Error,
		Files: func(e *model.Env) []string {
			out := []string{"iam-controller-role-policies.json"}
			for _, cp := range generators.ControllerPolicies(e.Facts, e.Names, e.IAMGates) {
				out = append(out, "iam-policy-"+cp.Name+".json")
			}
			return out
		},
		Summary: "Each controller policy is attached and equals the rendered one statement by statement (the missing and extra actions are named).",
		run: func(c *checkRun) {
			n := c.e.Names
			var att iamAttached
			if !c.load("iam-controller-role-policies.json", &att, "role "+n.ControllerRole, "its attached policies", "") {
				return
			}
			for _, cp := range generators.ControllerPolicies(c.e.Facts, n, c.e.IAMGates) {
				arn := n.PolicyARN(cp.Name)
				attached := false
				for _, p := range att.AttachedPolicies {
					attached = attached || p.PolicyArn == arn
				}
				if !attached {
					c.report("role "+n.ControllerRole, arn+" attached", "not attached", escape.ShellJoin("aws", "iam", "attach-role-policy", "--role-name", n.ControllerRole, "--policy-arn", arn))
				}
				var pv iamPolicyVersion
				if !c.load("iam-policy-"+cp.Name+".json", &pv, "policy "+cp.Name, "the policy of "+c.file(model.IAMFile(cp.File)), c.deployIAM()) {
					continue
				}
				c.comparePolicy(cp, pv.PolicyVersion.Document)
			}
		},
	},
	{
		ID: "doctor/interruption", Severity: diag.Error,
		Files: func(e *model.Env) []string {
			if e.Names.Queue == "" {
				return nil
			}
			out := []string{"sqs-queue.json", "events-rules.json"}
			for _, r := range e.Facts.InterruptionRules {
				out = append(out, "events-targets-"+e.Names.RuleName(r)+".json")
			}
			return out
		},
		Summary: "The interruption queue exists with the rendered policy, and every rule exists and targets it.",
		run: func(c *checkRun) {
			n := c.e.Names
			if n.Queue == "" {
				return
			}
			var q sqsQueue
			if c.load("sqs-queue.json", &q, "queue "+n.Queue, "the interruption queue", c.deployIAM()) {
				var have any
				json.Unmarshal([]byte(q.Attributes["Policy"]), &have)
				want := iamdoc.Normalize(generators.InterruptionQueuePolicy(n))
				delete(want.(map[string]any), "Version")
				if m, ok := have.(map[string]any); ok {
					delete(m, "Version")
				}
				if !reflect.DeepEqual(iamdoc.Normalize(have), want) {
					c.report("queue "+n.Queue, "the policy of "+c.file(model.FileQueuePolicy), compact(have), c.deployIAM())
				}
			}
			var rules eventsRules
			if !c.load("events-rules.json", &rules, "EventBridge rules", "the interruption rules", "") {
				return
			}
			for _, r := range c.e.Facts.InterruptionRules {
				name := n.RuleName(r)
				found := false
				for _, have := range rules.Rules {
					found = found || have.Name == name
				}
				if !found {
					c.report("rule "+name, "a rule for "+r.DetailType, "absent", c.deployIAM())
					continue
				}
				var t eventsTargets
				if !c.load("events-targets-"+name+".json", &t, "rule "+name, "its targets", "") {
					continue
				}
				targets := false
				var arns []string
				for _, tg := range t.Targets {
					targets = targets || tg.Arn == n.QueueARN
					arns = append(arns, tg.Arn)
				}
				if !targets {
					c.report("rule "+name, "target "+n.QueueARN, orNone(strings.Join(arns, ", ")), escape.ShellJoin("aws", "events", "put-targets", "--region", n.Region, "--rule", name, "--targets", "Id=KarpenterInterruptionQueueTarget,Arn="+n.QueueARN))
				}
			}
		},
	},
	{
		ID: "doctor/spot-role", Severity: diag.Error,
		Files: func(e *model.Env) []string {
			if !usesSpot(e) {
				return nil
			}
			return []string{"iam-spot-service-linked-role.json"}
		},
		Summary: "The account has the EC2 Spot service-linked role when a pool may launch spot instances.",
		run: func(c *checkRun) {
			if !usesSpot(c.e) {
				return
			}
			var role iamRole
			c.load("iam-spot-service-linked-role.json", &role, "role AWSServiceRoleForEC2Spot", "the Spot service-linked role",
				"aws iam create-service-linked-role --aws-service-name spot.amazonaws.com")
		},
	},
	{
		ID: "doctor/crds", Severity: diag.Error, Files: files("k8s-crds.json"),
		Summary: "The CRDs the profile's minor installs and the profile uses (NodeOverlay and CapacityBuffer when it has them) are present, serve their version and, from Karpenter 1.1, store only it; other CRDs of the cluster are ignored.",
		run: func(c *checkRun) {
			var l k8sList
			if !c.load("k8s-crds.json", &l, "CRDs", "the Karpenter CRDs", c.installCRDs()) {
				return
			}
			have := map[string]k8sObject{}
			for _, crd := range l.Items {
				have[crd.Metadata.Name] = crd
			}
			for _, want := range c.wantCRDs() {
				crd, ok := have[want.Name]
				if !ok {
					c.report("CRD "+want.Name, "installed ("+want.Kind+" "+want.Version+")", "absent", c.installCRDs())
					continue
				}
				var served []string
				for _, v := range crd.Spec.Versions {
					if v.Served {
						served = append(served, v.Name)
					}
				}
				if !slices.Contains(served, want.Version) {
					c.report("CRD "+want.Name, want.Version+" served", "served: "+orNone(strings.Join(served, ", ")), c.installCRDs())
				}
				if c.e.Version.Minor >= 1 && !slices.Equal(crd.Status.StoredVersions, []string{want.Version}) {
					c.report("CRD "+want.Name, "status.storedVersions ["+want.Version+"]", fmt.Sprint(crd.Status.StoredVersions),
						escape.ShellJoin("kubectl", "patch", "crd", crd.Metadata.Name, "--subresource=status", "--type=merge", "-p", `{"status":{"storedVersions":["`+want.Version+`"]}}`)+" (after every object was re-applied as "+want.Version+")")
				}
			}
		},
	},
	{
		ID: "doctor/webhooks", Severity: diag.Error, Files: files("k8s-webhooks.json"),
		Summary: "No webhook configuration of Karpenter's removed v1beta1 APIs is left (from 1.1 nothing serves them).",
		run: func(c *checkRun) {
			var l k8sList
			if !c.load("k8s-webhooks.json", &l, "webhook configurations", "the webhook configurations", "") {
				return
			}
			if c.e.Version.Major == 1 && c.e.Version.Minor == 0 {
				return // 1.0 still serves them
			}
			for _, w := range l.Items {
				if strings.Contains(w.Metadata.Name, "karpenter") {
					c.report(strings.ToLower(w.Kind)+" "+w.Metadata.Name, "absent", "present", escape.ShellJoin("kubectl", "delete", strings.ToLower(w.Kind), w.Metadata.Name))
				}
			}
		},
	},
	{
		ID: "doctor/controller", Severity: diag.Error, Files: files("k8s-karpenter-deployment.json"),
		Summary: "The running controller is the profile's version, with its CLUSTER_NAME and INTERRUPTION_QUEUE.",
		run: func(c *checkRun) {
			n := c.e.Names
			var d k8sDeployment
			if !c.load("k8s-karpenter-deployment.json", &d, "deployment "+n.Namespace+"/karpenter", "the controller", c.helmUpgrade()) {
				return
			}
			for _, ct := range d.Spec.Template.Spec.Containers {
				if ct.Name != "controller" {
					continue
				}
				tag := ct.Image[strings.LastIndex(ct.Image, ":")+1:]
				if at := strings.Index(ct.Image, "@"); at >= 0 {
					img := ct.Image[:at]
					tag = img[strings.LastIndex(img, ":")+1:]
				}
				if tag != c.e.Version.String() {
					c.report("deployment "+n.Namespace+"/karpenter", "image "+c.e.Version.String(), ct.Image,
						c.helmUpgrade())
				}
				env := map[string]string{}
				for _, v := range ct.Env {
					env[v.Name] = v.Value
				}
				for k, want := range map[string]string{"CLUSTER_NAME": n.Cluster, "INTERRUPTION_QUEUE": n.Queue} {
					if env[k] != want {
						c.report("deployment "+n.Namespace+"/karpenter", k+"="+want, k+"="+env[k], c.helmUpgrade())
					}
				}
			}
		},
	},
	{
		ID: "doctor/helm-values", Severity: diag.Error, Files: files("helm-values.json"),
		Summary: "The Helm values in use equal the rendered values (the keys that differ are named).",
		run: func(c *checkRun) {
			var have map[string]any
			if !c.load("helm-values.json", &have, "release "+c.e.Names.Namespace+"/karpenter", "the rendered values", "") {
				return
			}
			want := iamdoc.Normalize(generators.HelmValues(c.e)).(map[string]any)
			for _, d := range diffKeys("", iamdoc.Normalize(have), want) {
				c.report("release "+c.e.Names.Namespace+"/karpenter", d.Key+" = "+valueText(d.Want), d.Key+" = "+valueText(d.Have),
					c.helmUpgrade())
			}
		},
	},
	{
		ID: "doctor/node-class-status", Severity: diag.Error, Files: files("k8s-ec2nodeclasses.json", "k8s-nodepools.json"),
		Summary: "No EC2NodeClass or NodePool status condition reports a failure (its reason and message are shown).",
		run: func(c *checkRun) {
			for _, f := range []string{"k8s-ec2nodeclasses.json", "k8s-nodepools.json"} {
				var l k8sList
				if !c.load(f, &l, f, "the objects", "") {
					continue
				}
				for _, o := range l.Items {
					for _, cond := range o.Status.Conditions {
						if cond.Status == "False" {
							c.report(strings.TrimSuffix(strings.TrimPrefix(f, "k8s-"), "es.json")+" "+o.Metadata.Name, cond.Type+"=True",
								fmt.Sprintf("%s=False (%s: %s)", cond.Type, cond.Reason, cond.Message), "fix what the message names; karpenter's logs have the details")
						}
					}
				}
			}
		},
	},
}

func (c *checkRun) comparePolicy(cp generators.ControllerPolicy, have map[string]any) {
	want := statementsBySid(iamdoc.Normalize(cp.Document))
	got := statementsBySid(iamdoc.Normalize(have))
	for _, sid := range sortedKeys(want) {
		g, ok := got[sid]
		if !ok {
			c.report("policy "+cp.Name, "statement "+sid, "absent", c.deployIAM())
			continue
		}
		if reflect.DeepEqual(g, want[sid]) {
			continue
		}
		missing, extra := actionDiff(want[sid], g)
		found := "different resources or conditions"
		if len(missing) > 0 || len(extra) > 0 {
			found = fmt.Sprintf("missing actions %s; extra actions %s", orNone(strings.Join(missing, ", ")), orNone(strings.Join(extra, ", ")))
		}
		c.report("policy "+cp.Name+" statement "+sid, "the statement of "+c.file(model.IAMFile(cp.File)), found, c.deployIAM())
	}
	for _, sid := range sortedKeys(got) {
		if _, ok := want[sid]; !ok {
			c.report("policy "+cp.Name, "no statement "+sid, "statement "+sid, c.deployIAM())
		}
	}
}

func statementsBySid(doc any) map[string]map[string]any {
	out := map[string]map[string]any{}
	m, _ := doc.(map[string]any)
	sts, _ := m["Statement"].([]any)
	for i, st := range sts {
		s, _ := st.(map[string]any)
		sid, _ := s["Sid"].(string)
		if sid == "" {
			sid = fmt.Sprintf("#%d", i)
		}
		out[sid] = s
	}
	return out
}

func actionDiff(want, got map[string]any) (missing, extra []string) {
	return iamdoc.Diff(iamdoc.Strings(got["Action"]), iamdoc.Strings(want["Action"]))
}

// trusts reports whether a trust policy lets the principal (of a kind:
// Service, Federated) assume the role.
func trusts(doc map[string]any, kind, principal string) bool {
	sts, _ := doc["Statement"].([]any)
	for _, st := range sts {
		s, _ := st.(map[string]any)
		if s["Effect"] != "Allow" {
			continue
		}
		p, _ := s["Principal"].(map[string]any)
		if slices.Contains(iamdoc.Strings(p[kind]), principal) {
			return true
		}
	}
	return false
}

// matchesTerms evaluates selector terms as Karpenter does: terms are
// ORed; a term's tags must all match ("*" is any value); id and name
// match exactly.
func matchesTerms(terms []profile.SelectorTerm, id, name string, tags []awsTag) bool {
	for _, t := range terms {
		switch {
		case t.ID != "":
			if t.ID == id {
				return true
			}
		case t.Name != "":
			if t.Name == name {
				return true
			}
		case len(t.Tags) > 0:
			if tagsMatch(tags, t.Tags) {
				return true
			}
		}
	}
	return false
}

func termsText(terms []profile.SelectorTerm) string {
	var parts []string
	for _, t := range terms {
		switch {
		case t.ID != "":
			parts = append(parts, "id "+t.ID)
		case t.Name != "":
			parts = append(parts, "name "+t.Name)
		default:
			parts = append(parts, "tags "+tagsText(t.Tags))
		}
	}
	return strings.Join(parts, " or ")
}

func tagFix(terms []profile.SelectorTerm, cmd string) string {
	for _, t := range terms {
		if len(t.Tags) > 0 {
			var tags []string
			for _, k := range sortedKeys(t.Tags) {
				tags = append(tags, "Key="+k+",Value="+t.Tags[k])
			}
			return "aws " + cmd + " --tags " + escape.ShellJoin(tags...)
		}
	}
	return "select existing ones in the node class"
}

func usesSpot(e *model.Env) bool {
	for _, np := range e.Profile.NodePools {
		if slices.Contains(np.CapacityTypes, "spot") {
			return true
		}
	}
	return false
}

// diffKeys lists the dotted keys where two JSON values differ.
func diffKeys(prefix string, have, want any) []valueDiff {
	hm, hok := have.(map[string]any)
	wm, wok := want.(map[string]any)
	if !hok || !wok {
		if reflect.DeepEqual(have, want) {
			return nil
		}
		return []valueDiff{{orNone(prefix), have, want}}
	}
	var out []valueDiff
	keys := map[string]bool{}
	for k := range hm {
		keys[k] = true
	}
	for k := range wm {
		keys[k] = true
	}
	for _, k := range slices.Sorted(maps.Keys(keys)) {
		p := k
		if prefix != "" {
			p = prefix + "." + k
		}
		out = append(out, diffKeys(p, hm[k], wm[k])...)
	}
	return out
}

// valueDiff is a key whose value differs, with both values.
type valueDiff struct {
	Key        string
	Have, Want any
}

// valueText is a value of the Helm values as the report shows it.
func valueText(v any) string {
	if v == nil {
		return "(unset)"
	}
	return compact(v)
}

func compact(v any) string {
	data, _ := json.Marshal(v)
	return string(data)
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

func sortedKeys[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }

// file is a file of the environment's bundle as seen from the repository
// root, where every fix command runs.
func (c *checkRun) file(name string) string { return "out/" + c.e.Name + "/" + name }

// deployIAM is the command that deploys the bundle's IAM (the template
// holds every role, policy, queue and rule).
func (c *checkRun) deployIAM() string {
	return escape.ShellJoin("aws", "cloudformation", "deploy", "--region", c.e.Names.Region, "--template-file", c.file(model.FileCloudFormation),
		"--stack-name", c.e.Names.Stack, "--capabilities", "CAPABILITY_NAMED_IAM")
}

// helmUpgrade is the command that installs the bundle's values, run from
// the repository root.
func (c *checkRun) helmUpgrade() string {
	return escape.ShellJoin("helm", "upgrade", "karpenter", "oci://public.ecr.aws/karpenter/karpenter", "--version", c.e.Version.String(),
		"--namespace", c.e.Names.Namespace, "--values", c.file(model.FileHelmValues))
}
