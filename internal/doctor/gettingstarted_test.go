package doctor_test

import (
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/karpgen/karpgen/internal/model"
)

// stack is an upstream getting-started template as CloudFormation
// deploys it for one cluster: its resources with !Sub, !GetAtt and !Ref
// resolved.
type stack map[string]struct {
	Type       string
	Properties map[string]any
}

// deployed reads upstream's getting-started template of a release from
// the reference data and resolves it for the environment's names.
func deployed(t *testing.T, release string, n model.Names) stack {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "reference", "karpenter", release, "cloudformation.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	vars := map[string]string{
		"ClusterName": n.Cluster, "AWS::Partition": n.Partition, "AWS::Region": n.Region, "AWS::AccountId": n.Account, "AWS::URLSuffix": n.URLSuffix,
		"KarpenterInterruptionQueue.Arn": n.ARN("sqs", n.Region, n.Account, n.Cluster),
		"KarpenterNodeRole.Arn":          n.ARN("iam", "", n.Account, "role/KarpenterNodeRole-"+n.Cluster),
	}
	sub := regexp.MustCompile(`\$\{([A-Za-z:.]+)\}`)
	var resolve func(x *yaml.Node) any
	resolve = func(x *yaml.Node) any {
		switch {
		case x.Tag == "!Sub":
			return sub.ReplaceAllStringFunc(x.Value, func(m string) string {
				v, ok := vars[m[2:len(m)-1]]
				if !ok {
					t.Fatalf("%s: no value for %s", release, m)
				}
				return v
			})
		case x.Tag == "!GetAtt":
			return vars[x.Value]
		case x.Tag == "!Ref":
			return x.Value
		case x.Kind == yaml.MappingNode:
			m := map[string]any{}
			for i := 0; i+1 < len(x.Content); i += 2 {
				m[x.Content[i].Value] = resolve(x.Content[i+1])
			}
			return m
		case x.Kind == yaml.SequenceNode:
			l := []any{}
			for _, c := range x.Content {
				l = append(l, resolve(c))
			}
			return l
		}
		var v any
		if err := x.Decode(&v); err != nil {
			t.Fatal(err)
		}
		return v
	}
	root := resolve(doc.Content[0]).(map[string]any)
	raw, err := json.Marshal(root["Resources"])
	if err != nil {
		t.Fatal(err)
	}
	var s stack
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Fatal(err)
	}
	return s
}

// document is a policy document of the template: an object, or the JSON
// text of !Sub |.
func document(t *testing.T, v any) any {
	if s, ok := v.(string); ok {
		var doc any
		if err := json.Unmarshal([]byte(s), &doc); err != nil {
			t.Fatal(err)
		}
		return doc
	}
	return v
}

// TestGettingStartedStackAsCaptured: a cluster made with upstream's own
// getting-started stack of the profile's release, whose queue, rules and
// node role the profile adopts and whose controller policies are
// attached to the team's controller role, is captured as AWS would print
// it and has no finding in the IAM checks: the queue and rules by what
// they do, the role by its policies, the controller's requests by the
// stack's policies.
func TestGettingStartedStackAsCaptured(t *testing.T) {
	templates, err := filepath.Glob(filepath.Join("..", "..", "reference", "karpenter", "v1.*", "cloudformation.yaml"))
	if err != nil || len(templates) < 10 {
		t.Fatalf("the reference holds %d getting-started templates of v1 (%v)", len(templates), err)
	}
	for _, tmpl := range templates {
		release := filepath.Base(filepath.Dir(tmpl))
		t.Run(release, func(t *testing.T) { gettingStarted(t, strings.TrimPrefix(release, "v"), release) })
	}
}

func gettingStarted(t *testing.T, version, release string) {
	p := *prodEnv(t).Profile
	p.Karpenter.Version = version
	n0 := model.Resolve(&p).Names
	p.Karpenter.ExistingInterruptionQueue = n0.Cluster
	p.Karpenter.ExistingNodeRole = "KarpenterNodeRole-" + n0.Cluster
	p.Karpenter.ExistingControllerRole = "eksctl-" + n0.Cluster + "-karpenter"
	e := model.Resolve(&p)
	n := e.Names
	s := deployed(t, release, n)
	f := healthy(t, e)

	queuePolicy, err := json.Marshal(s["KarpenterInterruptionQueuePolicy"].Properties["PolicyDocument"])
	if err != nil {
		t.Fatal(err)
	}
	f["sqs-queue.json"] = map[string]any{"Attributes": map[string]any{"Policy": string(queuePolicy)}}
	var rules, names []any
	var attached, managed []any
	for _, logical := range slices.Sorted(maps.Keys(s)) {
		r := s[logical]
		switch r.Type {
		case "AWS::Events::Rule":
			name := "Karpenter-" + n.Cluster + "-" + logical + "-1AB2CD3EF4GH"
			pattern, err := json.Marshal(r.Properties["EventPattern"])
			if err != nil {
				t.Fatal(err)
			}
			rules = append(rules, map[string]any{"Name": name, "State": "ENABLED", "EventPattern": string(pattern)})
			names = append(names, name)
		case "AWS::IAM::ManagedPolicy":
			name := r.Properties["ManagedPolicyName"].(string)
			arn := n.PolicyARN(name)
			attached = append(attached, map[string]any{"PolicyName": name, "PolicyArn": arn})
			managed = append(managed, map[string]any{"PolicyName": name, "Arn": arn,
				"PolicyVersionList": []any{map[string]any{"Document": document(t, r.Properties["PolicyDocument"]), "IsDefaultVersion": true}}})
		case "AWS::IAM::Role":
			f["iam-node-role.json"].(map[string]any)["Role"].(map[string]any)["AssumeRolePolicyDocument"] = r.Properties["AssumeRolePolicyDocument"]
			var pols []any
			for _, arn := range r.Properties["ManagedPolicyArns"].([]any) {
				pols = append(pols, map[string]any{"PolicyName": arn.(string)[strings.LastIndex(arn.(string), "/")+1:], "PolicyArn": arn})
			}
			f["iam-node-role-policies.json"] = map[string]any{"AttachedPolicies": pols}
		}
	}
	if len(rules) == 0 || len(attached) == 0 {
		t.Fatalf("the template has %d rules and %d managed policies", len(rules), len(attached))
	}
	f["events-rules.json"] = map[string]any{"Rules": rules}
	f["events-rules-by-target.json"] = map[string]any{"RuleNames": names}
	f["iam-controller-role-details.json"] = map[string]any{
		"Roles":    []any{map[string]any{"RoleName": n.ControllerRole, "RolePolicyList": []any{}, "AttachedManagedPolicies": attached}},
		"Policies": managed,
	}
	var got []string
	for _, fd := range findings(run(t, e, writeState(t, f))) {
		if slices.Contains([]string{"doctor/interruption", "doctor/node-role", "doctor/controller-policy"}, fd.Rule) {
			got = append(got, fd.Rule+" "+fd.Resource+": want "+fd.Expected+", found "+fd.Found)
		}
	}
	// 1.12's template scoped the zonal-shift read to the cluster's ARN,
	// which the action does not take (1.13 moved it to a condition on
	// arc-zonal-shift:ResourceIdentifier): a controller on that policy
	// cannot read zonal shifts, which is the one true finding.
	var want []string
	switch {
	case release == "v0.37.8":
		want = want037(n)
	case version == "1.12.2":
		want = []string{"doctor/controller-policy role " + n.ControllerRole + ": want its policies allow arc-zonal-shift:GetManagedResource on *, found no statement of its policies takes these requests in (their actions on these resources)"}
	}
	if !slices.Equal(got, want) {
		t.Errorf("upstream's getting-started stack of %s, adopted:\n%s\nwant:\n%s", version, strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// The checks read what was set up: without the stack's spot rule, and
	// with one of the stack's controller policies detached, each says so.
	f["events-rules-by-target.json"] = map[string]any{"RuleNames": slices.DeleteFunc(slices.Clone(names), func(x any) bool { return strings.Contains(x.(string), "-SpotInterruptionRule-") })}
	details := f["iam-controller-role-details.json"].(map[string]any)
	details["Roles"].([]any)[0].(map[string]any)["AttachedManagedPolicies"] = slices.DeleteFunc(slices.Clone(attached), func(x any) bool {
		return x.(map[string]any)["PolicyName"] == attached[0].(map[string]any)["PolicyName"]
	})
	got = nil
	for _, fd := range findings(run(t, e, writeState(t, f))) {
		got = append(got, fd.Rule+" "+fd.Resource)
	}
	if !slices.Contains(got, "doctor/interruption events aws.ec2 / EC2 Spot Instance Interruption Warning") || !slices.Contains(got, "doctor/controller-policy role "+n.ControllerRole) {
		t.Errorf("with the spot rule gone and the lifecycle policy detached:\n%s", strings.Join(got, "\n"))
	}
}

// TestGettingStartedStackOf037: a cluster made with 0.37's
// getting-started stack, before its upgrade to 1.0, adopted by a 1.0
// profile. Its queue, rules and node role serve 1.0 as they are; its one
// controller policy is v1beta1's, and what 1.0 asks that it does not
// allow is what upstream's v1 upgrade guide has the policy replaced for.
func TestGettingStartedStackOf037(t *testing.T) {
	gettingStarted(t, "1.0.14", "v0.37.8")
}

// want037: 1.0 tags each instance it launched with eks:eks-cluster-name
// as well, which 0.37's tagging statement does not list among the keys
// it allows; the rest of what 1.0 asks, 0.37's policy allows.
func want037(n model.Names) []string {
	return []string{"doctor/controller-policy role " + n.ControllerRole + ": want its policies allow ec2:CreateTags on instance, found the statements that take them in test aws:TagKeys " +
		`(closest: policy KarpenterControllerPolicy-` + n.Cluster + ` statement "AllowScopedResourceTagging" fails on ForAllValues:StringEquals aws:TagKeys "karpenter.sh/nodeclaim", "Name" (the request has "Name", "eks:eks-cluster-name", "karpenter.sh/nodeclaim"))`}
}

// TestGettingStartedStackFor115: upstream publishes no getting-started
// template of its own for 1.15 (the website's template is unchanged from
// v1.14.1 to the newest main the reference was refreshed from), so a
// 1.15 cluster set up by the guide runs 1.14's stack; a 1.15 profile
// adopting it has nothing missing.
func TestGettingStartedStackFor115(t *testing.T) {
	gettingStarted(t, "1.15.2", "v1.14.3")
}
