package migrate

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/karpgen/karpgen/internal/doctor/live"
	"github.com/karpgen/karpgen/internal/model"
	"github.com/karpgen/karpgen/internal/util/escape"
)

// Owned is a resource the runbook changes, with its owner: the runbook
// changes it through that owner, so that the owner's next run (an apply,
// a stack update, a self-heal) does not undo it.
type Owned struct {
	Resource string     `json:"resource"`
	Owner    live.Owner `json:"owner"`
}

// Snippet is a change to make in the owner's own configuration: Where
// names the file or block, Lang the language of Text.
type Snippet struct {
	Where string `json:"where"`
	Lang  string `json:"lang"`
	Text  string `json:"text"`
}

// owners finds who owns what the runbook changes, from the capture's
// tags and annotations, and from the profile where they do not say.
type owners struct {
	e    *model.Env
	c    *live.Cluster
	seen map[string]live.Owner
}

func newOwners(e *model.Env, c *live.Cluster) *owners {
	return &owners{e: e, c: c, seen: map[string]live.Owner{}}
}

// terraform is the owner the profile declares for a module ("vpc" or
// "eks"), nil when it declares none.
func (o *owners) terraform(module string) *live.Owner {
	t := o.e.Profile.Cluster.Owners.Terraform
	if t == nil {
		return nil
	}
	name := t.VPCModule
	if module == "eks" {
		name = t.EKSModule
	}
	return &live.Owner{Kind: live.OwnerTerraform, Name: "module." + name, Evidence: "declared in the profile: cluster.owners.terraform"}
}

// note records a resource's owner for the runbook's list.
func (o *owners) note(resource string, owner live.Owner) live.Owner {
	o.seen[resource] = owner
	return owner
}

// list is every resource the runbook changes with its owner, sorted.
func (o *owners) list() []Owned {
	out := []Owned{}
	for _, r := range slices.Sorted(maps.Keys(o.seen)) {
		out = append(out, Owned{Resource: r, Owner: o.seen[r]})
	}
	return out
}

// subnet is a subnet's owner: its tags, else the VPC module the profile
// names.
func (o *owners) subnet(id string) live.Owner {
	if !o.c.Knows(live.PartNetwork) && o.terraform("vpc") == nil {
		return o.note("subnet "+id, live.Owner{Kind: live.OwnerNobody, Evidence: "assumed: the capture holds no tags of it (ec2-subnets.json)"})
	}
	var tags map[string]string
	if o.c != nil {
		tags = o.c.Subnets[id].Tags
	}
	return o.note("subnet "+id, live.OwnerOfTags(tags, o.terraform("vpc")))
}

// securityGroup is a security group's owner: its tags; the cluster
// security group is EKS's; else the EKS module the profile names.
func (o *owners) securityGroup(id string) live.Owner {
	if !o.c.Knows(live.PartNetwork) && o.terraform("eks") == nil && (o.c == nil || id != o.c.ClusterSecurityGroup) {
		return o.note("security group "+id, live.Owner{Kind: live.OwnerNobody, Evidence: "assumed: the capture holds no tags of it (ec2-security-groups.json)"})
	}
	sg, _ := o.c.SecurityGroup(id)
	if o.c != nil && id == o.c.ClusterSecurityGroup {
		owner := live.OwnerOfTags(sg.Tags, nil)
		if owner.Kind == live.OwnerNobody {
			owner = live.Owner{Kind: live.OwnerEKS, Evidence: "the cluster security group, which EKS made"}
		}
		return o.note("security group "+id, owner)
	}
	return o.note("security group "+id, live.OwnerOfTags(sg.Tags, o.terraform("eks")))
}

// nodeGroup is a managed node group's owner.
func (o *owners) nodeGroup(name string) live.Owner {
	g, ok := o.c.NodeGroup(name)
	if !ok && o.terraform("eks") == nil {
		return o.note("node group "+name, live.Owner{Kind: live.OwnerNobody, Evidence: "assumed: not in the capture"})
	}
	return o.note("node group "+name, live.OwnerOfTags(g.Tags, o.terraform("eks")))
}

// deployment is a Deployment's owner, from its annotations and labels;
// without the capture's, nobody is assumed and said.
func (o *owners) deployment(namespace, name string) (live.Owner, error) {
	var d live.Object
	ok := false
	if o.c != nil {
		d, ok = o.c.Deployments[namespace+"/"+name]
	}
	if !ok {
		return o.note("Deployment "+namespace+"/"+name, live.Owner{Kind: live.OwnerNobody, Evidence: "assumed: not in the capture; the first command of the step prints the Argo CD Application that tracks it, if one does"}), nil
	}
	owner, err := live.OwnerOfObject(d)
	if err != nil {
		return live.Owner{}, err
	}
	return o.note("Deployment "+namespace+"/"+name, owner), nil
}

// terraformKey is the key of a node group in terraform-aws-eks's
// eks_managed_node_groups: the module names the group after it (with a
// random suffix by default) and tags it Name = key.
func terraformKey(g live.NodeGroup, name string) string {
	if k := g.Tags["Name"]; k != "" {
		return k
	}
	return name
}

// terraformDir is the root module's folder the profile names.
func (o *owners) terraformDir() string {
	if t := o.e.Profile.Cluster.Owners.Terraform; t != nil && t.Dir != "" {
		return t.Dir
	}
	return "."
}

// terraformPlan is the check of a Terraform change: a plan that shows
// only what it should.
func (o *owners) terraformPlan(expect string) string {
	return escape.ShellJoin("terraform", "-chdir="+o.terraformDir(), "plan") + "   # shows " + expect + "; nothing else: stop if it shows more"
}

// hclMap writes a Terraform map of one key.
func hclMap(key, value string) string {
	return fmt.Sprintf("{\n  %s = %s\n}", hclString(key), hclString(value))
}

// hclString is a Terraform string literal: the characters HCL would read
// as an interpolation or directive are escaped.
func hclString(s string) string {
	q := fmt.Sprintf("%q", s)
	return strings.NewReplacer("${", "$${", "%{", "%%{").Replace(q)
}

// changeSet is how a stack-owned resource changes: the edit in its
// template, previewed with a change set, then executed.
func changeSet(region string, owner live.Owner, edit string) (text []string, commands, check []string) {
	name := "karpgen-migrate"
	stack := owner.Name
	logical := owner.Logical
	if logical == "" {
		logical = "the resource"
	}
	text = []string{fmt.Sprintf("Stack %s owns %s: %s in its template (kept as you deploy it), and deploy it as a change set, so that the preview shows the one change before it runs; a change made with the AWS CLI is undone by the stack's next update of that property.", escape.Code(stack), escape.Code(logical), edit)}
	commands = []string{
		escape.ShellJoin("aws", "cloudformation", "create-change-set", "--region", region, "--stack-name", stack, "--change-set-name", name, "--template-body", "file://"+stack+".yaml", "--capabilities", "CAPABILITY_NAMED_IAM") + "   # with its parameters as they are: --parameters ParameterKey=NAME,UsePreviousValue=true for each",
		escape.ShellJoin("aws", "cloudformation", "describe-change-set", "--region", region, "--stack-name", stack, "--change-set-name", name, "--query", "Changes[].ResourceChange.[Action,LogicalResourceId,Replacement]", "--output", "text"),
		escape.ShellJoin("aws", "cloudformation", "execute-change-set", "--region", region, "--stack-name", stack, "--change-set-name", name),
	}
	check = []string{escape.ShellJoin("aws", "cloudformation", "describe-stacks", "--region", region, "--stack-name", stack, "--query", "Stacks[0].StackStatus", "--output", "text") + "   # UPDATE_COMPLETE; the change set listed Modify " + logical + " only, Replacement False"}
	return text, commands, check
}
