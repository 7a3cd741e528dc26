package doctor

import (
	"cmp"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/karpgen/karpgen/generators"
	"github.com/karpgen/karpgen/internal/diag"
	"github.com/karpgen/karpgen/internal/doctor/live"
	"github.com/karpgen/karpgen/internal/iam/iampolicy"
	"github.com/karpgen/karpgen/internal/model"
	"github.com/karpgen/karpgen/internal/profile"
	"github.com/karpgen/karpgen/internal/util/escape"
)

// iamChecks compare the account's roles, policies, access and interruption queue with the bundle's IAM.
var iamChecks = []*Check{
	{
		ID: "doctor/node-role", Severity: diag.Error,
		Summary: "Each node role exists, trusts EC2 and has the managed policies of the profile's Karpenter minor (and those karpenter.nodeRoles adds); an adopted role is judged by what its policies allow: the AWS managed ones attached (ECR ReadOnly for PullOnly) and its own inline and customer managed policies, each request they do not allow named with the closest statement; the VPC CNI's policy is not asked of it when aws-node has a role of its own (IRSA or Pod Identity).",
		run: func(c *checkRun) {
			n := c.e.Names
			for _, r := range n.NodeRoles() {
				c.nodeRole(r)
			}
		},
	},
	{
		ID: "doctor/node-access", Severity: diag.Error,
		Summary: "Each node role may join the cluster: an access entry of the right type (EC2_LINUX, or EC2_WINDOWS when a pool runs Windows) on a cluster whose authentication mode reads access entries (not CONFIG_MAP), or its aws-auth mapping.",
		run: func(c *checkRun) {
			n := c.e.Names
			if c.e.Profile.Karpenter.NodeAccess == profile.AWSAuth {
				var cm struct {
					Data map[string]string `json:"data"`
				}
				if !c.load("k8s-aws-auth.json", &cm, "configmap kube-system/aws-auth", "a mapping of "+n.NodeRoleARN, "add iam/aws-auth-maproles.yaml to the aws-auth ConfigMap") {
					return
				}
				for _, r := range n.NodeRoles() {
					if !strings.Contains(cm.Data["mapRoles"], r.ARN) {
						c.report("configmap kube-system/aws-auth", "a mapping of "+r.ARN, "none", "add iam/aws-auth-maproles.yaml to the aws-auth ConfigMap")
					}
				}
				return
			}
			// Access entries need a cluster that reads them: in CONFIG_MAP
			// mode EKS refuses to create one, and the template's step
			// fails and rolls back the whole IAM stack.
			var cl eksCluster
			if c.load("eks-cluster.json", &cl, "cluster "+n.Cluster, "an authentication mode that reads access entries (API_AND_CONFIG_MAP or API)", "") {
				// An AWS CLI older than access entries prints no mode: then
				// the entries below say what the cluster holds.
				if mode := cl.Cluster.AccessConfig.AuthenticationMode; mode == "CONFIG_MAP" {
					c.report("cluster "+n.Cluster, "authentication mode API_AND_CONFIG_MAP or API (karpenter.nodeAccess is accessEntry)", "authentication mode "+mode,
						escape.ShellJoin("aws", "eks", "update-cluster-config", "--region", n.Region, "--name", n.Cluster, "--access-config", "authenticationMode=API_AND_CONFIG_MAP")+
							" (the aws-auth mappings keep working; the change cannot be undone), or set karpenter.nodeAccess: \"awsAuth\" and map the node roles in aws-auth")
					return
				}
			}
			want := generators.AccessEntryType(c.e.Windows)
			for _, r := range n.NodeRoles() {
				fix := escape.ShellJoin("aws", "eks", "create-access-entry", "--region", n.Region, "--cluster-name", n.Cluster, "--principal-arn", r.ARN, "--type", want)
				var ae eksAccessEntry
				if !c.load(nodeRoleFilesOf(n, r.Name).entry, &ae, "access entry "+r.ARN, "an access entry of type "+want, fix) {
					continue
				}
				if ae.AccessEntry.Type != want {
					c.report("access entry "+r.ARN, "type "+want, "type "+ae.AccessEntry.Type,
						"an access entry's type cannot change: delete it (aws eks delete-access-entry ...) and "+fix)
				}
			}
		},
	},
	{
		ID: "doctor/instance-profiles", Severity: diag.Error,
		Summary: "Each instance profile a node class launches with exists and holds the role the profile says (instanceProfileRole, else the node role): the controller may pass only the node roles, and only their nodes join.",
		run: func(c *checkRun) {
			n := c.e.Names
			for _, name := range slices.Sorted(maps.Keys(c.e.Profile.NodeClasses)) {
				nc := c.e.Profile.NodeClasses[name]
				if nc.InstanceProfile == "" {
					continue
				}
				want := cmp.Or(nc.InstanceProfileRole, n.NodeRole)
				var ip struct {
					InstanceProfile struct {
						Roles []struct{ RoleName string } `json:"Roles"`
					} `json:"InstanceProfile"`
				}
				resource := "instance profile " + nc.InstanceProfile
				fix := escape.ShellJoin("aws", "iam", "add-role-to-instance-profile", "--instance-profile-name", nc.InstanceProfile, "--role-name", want)
				if !c.load("iam-instance-profile-"+nc.InstanceProfile+".json", &ip, resource, "an instance profile holding role "+want, fix) || c.dry {
					continue
				}
				var have []string
				for _, r := range ip.InstanceProfile.Roles {
					have = append(have, r.RoleName)
				}
				if !slices.Contains(have, want) {
					if len(have) > 0 {
						fix = "set node class " + name + "'s instanceProfileRole to the role it holds (and add that role to karpenter.nodeRoles), or " +
							escape.ShellJoin("aws", "iam", "remove-role-from-instance-profile", "--instance-profile-name", nc.InstanceProfile, "--role-name", have[0]) + " and " + fix
					}
					c.report(resource, "role "+want+" (node class "+name+")", orNone(strings.Join(have, ", ")), fix)
				}
			}
		},
	},
	{
		ID: "doctor/controller-trust", Severity: diag.Error,
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
				var ids []string
				for _, a := range as.Associations {
					if a.Namespace == n.Namespace && a.ServiceAccount == n.ServiceAccount {
						ids = append(ids, a.ID)
					}
				}
				switch {
				case n.Association != "" && !slices.Contains(ids, n.Association):
					got := "absent"
					if len(ids) > 0 {
						got = strings.Join(ids, ", ")
					}
					c.report("pod identity association of "+n.Namespace+"/"+n.ServiceAccount, n.Association+" (karpenter.existingPodIdentityAssociation)", got,
						"set karpenter.existingPodIdentityAssociation to the ID the service account's association has, or drop it so that the bundle creates one")
				case len(ids) == 0 && n.Association == "":
					c.report("pod identity association", n.Namespace+"/"+n.ServiceAccount, "absent",
						escape.ShellJoin("aws", "eks", "create-pod-identity-association", "--region", n.Region, "--cli-input-json", "file://"+c.file(model.FilePodIdentity)))
				}
				c.associationRole()
			}
			var ad eksAddons
			if c.load("eks-addons.json", &ad, "add-ons", "eks-pod-identity-agent", "") && !slices.Contains(ad.Addons, "eks-pod-identity-agent") {
				c.report("add-on eks-pod-identity-agent", "installed", "absent", escape.ShellJoin("aws", "eks", "create-addon", "--region", n.Region, "--cluster-name", n.Cluster, "--addon-name", "eks-pod-identity-agent"))
			}
		},
	},
	{
		ID: "doctor/controller-policy", Severity: diag.Error,
		Summary: "Each controller policy is attached and equals the rendered one statement by statement (the missing and extra actions are named); for a role the team made (existingControllerRole), its own policies allow every request the controller makes for the profile (each it cannot make is named, with the statement that came closest).",
		run: func(c *checkRun) {
			n := c.e.Names
			if n.ControllerRoleExists {
				checkOwnRole(c)
				return
			}
			var att iamAttached
			if !c.load("iam-controller-role-policies.json", &att, "role "+n.ControllerRole, "its attached policies", "") {
				return
			}
			for _, cp := range iampolicy.ControllerPolicies(c.e.Facts, n, c.e.IAMGates) {
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
		Summary: "The interruption queue exists and lets EventBridge send to it (the rendered policy for a queue the bundle creates; for an adopted one, a policy that allows it as EventBridge asks: evaluated for each rule that targets it, source conditions and the TLS deny included), and for every event Karpenter's minor reads a rule with that pattern targets the queue, whatever it is named.",
		run:     checkInterruption,
	},
	{
		ID: "doctor/spot-role", Severity: diag.Error,
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
}

// associationRole reports the controller's Pod Identity association when
// it binds another role than the controller's: the list of associations
// names no role, so the capture describes each (EKS allows one
// association per service account, so the bundle's cannot be added
// beside it; update it to the controller role).
func (c *checkRun) associationRole() {
	if c.dry || c.s == nil {
		return
	}
	n := c.e.Names
	var got live.Cluster
	if err := readAssociations(c.s, &got); err != nil {
		c.err = err
		return
	}
	for _, a := range got.Associations {
		if a.Namespace != n.Namespace || a.ServiceAccount != n.ServiceAccount || model.SameRole(a.RoleARN, n.ControllerRoleARN) {
			continue
		}
		c.report("pod identity association "+a.ID+" ("+a.Namespace+"/"+a.ServiceAccount+")", "role "+n.ControllerRoleARN, "role "+a.RoleARN,
			escape.ShellJoin("aws", "eks", "update-pod-identity-association", "--region", n.Region, "--cluster-name", n.Cluster, "--association-id", a.ID, "--role-arn", n.ControllerRoleARN)+
				" (or adopt both: karpenter.existingControllerRole: "+strconv.Quote(model.RoleNameOf(a.RoleARN))+", karpenter.existingPodIdentityAssociation: "+strconv.Quote(a.ID)+")")
	}
}
