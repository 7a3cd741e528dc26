package doctor

import (
	"encoding/json"
	"slices"
	"strings"

	"github.com/karpgen/karpgen/internal/facts"
	"github.com/karpgen/karpgen/internal/iameval"
	"github.com/karpgen/karpgen/internal/model"
	"github.com/karpgen/karpgen/internal/util/escape"
)

// nodeRole holds one node role to what the bundle needs of it: trust of
// EC2, and the managed policies of the profile's minor attached. A role
// the profile adopts is judged by what its policies allow rather than by
// their names: a minor's policy that is not attached is still met when
// the AWS managed policies attached (ECR ReadOnly for PullOnly) and the
// role's own inline and customer managed policies allow every request
// it stands for. The VPC CNI's policy is not asked of a role when
// aws-node runs with a role of its own (IRSA or Pod Identity).
func (c *checkRun) nodeRole(r model.NodeRole) {
	n := c.e.Names
	fix := c.deployIAM()
	if r.Exists {
		fix = "attach the policies to the existing role (aws iam attach-role-policy --role-name " + escape.Shell(r.Name) + " --policy-arn <arn>)"
	}
	f := nodeRoleFilesOf(n, r.Name)
	var role iamRole
	if !c.load(f.role, &role, "role "+r.Name, "the node role", fix) {
		return
	}
	if !trusts(role.Role.AssumeRolePolicyDocument, "Service", n.EC2Principal) {
		c.report("role "+r.Name, "a trust policy for "+n.EC2Principal, compact(role.Role.AssumeRolePolicyDocument), "update it to iam/node-trust-policy.json")
	}
	var att iamAttached
	if !c.load(f.policies, &att, "role "+r.Name, "its attached policies", fix) {
		return
	}
	var have []string
	for _, p := range att.AttachedPolicies {
		have = append(have, p.PolicyArn)
	}
	var allows func(name string) (bool, string)
	if r.Exists && !c.dry {
		allows = c.nodeRoleAllows(r, f, have)
	}
	cniOwnRole := r.Exists && !c.dry && c.cniHasOwnRole()
	for _, name := range c.e.Facts.NodeRolePolicies {
		arn := n.ManagedPolicyARN(name)
		if slices.Contains(have, arn) || name == "AmazonEKS_CNI_Policy" && cniOwnRole {
			continue
		}
		found := strings.Join(have, ", ")
		if allows != nil {
			ok, why := allows(name)
			if ok {
				continue
			}
			found = orNone(found) + "; " + why
		}
		c.report("role "+r.Name, arn+" attached", found, escape.ShellJoin("aws", "iam", "attach-role-policy", "--role-name", r.Name, "--policy-arn", arn))
	}
	for _, arn := range r.Policies {
		if !slices.Contains(have, arn) {
			c.report("role "+r.Name, arn+" attached", strings.Join(have, ", "),
				escape.ShellJoin("aws", "iam", "attach-role-policy", "--role-name", r.Name, "--policy-arn", arn))
		}
	}
}

// nodeRoleAllows evaluates what an AWS managed policy allows a node
// against an adopted role's policies: the AWS managed ones attached that
// facts knows, and its inline and customer managed policies when the
// capture holds them. It answers whether all is allowed and, when not,
// which requests are not and the statement that came closest.
func (c *checkRun) nodeRoleAllows(r model.NodeRole, f nodeRoleFiles, attached []string) func(name string) (bool, string) {
	n := c.e.Names
	var policies []*iameval.Policy
	for _, arn := range attached {
		name := arn[strings.LastIndex(arn, "/")+1:]
		if st, ok := facts.NodeManagedPolicies[name]; ok && arn == n.ManagedPolicyARN(name) {
			if p := managedPolicy(name, st); p != nil {
				policies = append(policies, p)
			}
		}
	}
	var d roleDetails
	found, failed, err := c.s.read(f.details, &d)
	if err != nil {
		c.err = err
	}
	if found && failed == nil && err == nil && len(d.Roles) > 0 {
		own, _ := roleDetailPolicies(c, "role "+r.Name, d)
		policies = append(policies, own...)
	}
	return func(name string) (bool, string) {
		var missing []string
		closest := ""
		for _, st := range facts.NodeManagedPolicies[name] {
			for _, action := range st.Actions {
				for _, res := range st.Resources {
					// A node calls its own region's endpoints.
					req := iameval.Request{Action: action, Resource: nodeResource(n, res), Context: map[string][]string{"aws:RequestedRegion": {n.Region}}}
					out, err := iameval.Evaluate(iameval.Policies{Identity: policies}, req)
					if err != nil || out.Decision != iameval.Allowed {
						missing = append(missing, action)
						if _, near := causeOf(out); closest == "" && near != "" {
							closest = near
						}
						break
					}
				}
			}
		}
		if len(missing) == 0 {
			return true, ""
		}
		why := "its policies do not allow " + strings.Join(missing, ", ")
		if closest != "" {
			why += " (closest: " + closest + ")"
		}
		if !found {
			why += "; its own policies were not captured (" + f.details + ")"
		}
		return false, why
	}
}

// managedPolicy is an AWS managed policy of facts as the evaluator reads it.
func managedPolicy(name string, sts []facts.NodeStatement) *iameval.Policy {
	type statement struct {
		Effect   string   `json:"Effect"`
		Action   []string `json:"Action"`
		Resource []string `json:"Resource"`
	}
	doc := struct {
		Version   string      `json:"Version"`
		Statement []statement `json:"Statement"`
	}{Version: "2012-10-17"}
	for _, st := range sts {
		var res []string
		for _, r := range st.Resources {
			if service, resource, ok := strings.Cut(r, ":"); ok {
				// Any partition, region and account.
				r = model.Names{Partition: "*"}.ARN(service, "*", "*", resource)
			}
			res = append(res, r)
		}
		doc.Statement = append(doc.Statement, statement{"Allow", st.Actions, res})
	}
	data, err := json.Marshal(doc)
	if err != nil {
		return nil
	}
	p, err := iameval.Parse("AWS managed policy "+name, data, false)
	if err != nil {
		return nil
	}
	return p
}

// nodeResource is a resource of a managed policy's statement as a
// request of this environment names it: "*", or the ARN of
// "service:resource" in the environment's region and account.
func nodeResource(n model.Names, res string) string {
	service, resource, ok := strings.Cut(res, ":")
	if !ok {
		return res
	}
	return n.ARN(service, n.Region, n.Account, resource)
}

// cniHasOwnRole says whether the VPC CNI (aws-node in kube-system) takes
// its credentials from a role of its own, through a Pod Identity
// association or an IRSA annotation on its service account; then the
// node role needs no CNI policy. What the capture does not hold counts
// as no.
func (c *checkRun) cniHasOwnRole() bool {
	var as eksPodIdentityAssociations
	if ok, _ := readKnown(c.s, "eks-pod-identity-associations.json", &as); ok {
		for _, a := range as.Associations {
			if a.Namespace == "kube-system" && a.ServiceAccount == "aws-node" {
				return true
			}
		}
	}
	var sa struct {
		Metadata struct {
			Annotations map[string]string `json:"annotations"`
		} `json:"metadata"`
	}
	ok, _ := readKnown(c.s, "k8s-aws-node-serviceaccount.json", &sa)
	return ok && sa.Metadata.Annotations["eks.amazonaws.com/role-arn"] != ""
}
