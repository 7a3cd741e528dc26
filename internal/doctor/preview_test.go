package doctor_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/karpgen/karpgen/generators"
	"github.com/karpgen/karpgen/internal/doctor"
	"github.com/karpgen/karpgen/internal/iam/cfnpreview"
	"github.com/karpgen/karpgen/internal/model"
)

// gettingStartedCapture is the capture of a cluster whose stack
// Karpenter-<cluster> was made from upstream's getting-started template
// of a release: describe-stacks, describe-stack-resources with the
// physical IDs CloudFormation gives (names from the template, rules
// named by CloudFormation) and get-template as it prints a YAML body.
func gettingStartedCapture(t *testing.T, e *model.Env, release string) map[string]any {
	n := e.Names
	body, err := os.ReadFile(filepath.Join("..", "..", "reference", "karpenter", release, "cloudformation.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	stack := model.GettingStartedStack(n.Cluster)
	s := deployed(t, release, n)
	var resources []any
	for _, logical := range slices.Sorted(func(yield func(string) bool) {
		for k := range s {
			if !yield(k) {
				return
			}
		}
	}) {
		r := s[logical]
		physical := stack + "-" + logical + "-1AB2CD3EF4GH"
		switch r.Type {
		case "AWS::IAM::Role":
			physical = r.Properties["RoleName"].(string)
		case "AWS::IAM::InstanceProfile":
			physical = r.Properties["InstanceProfileName"].(string)
		case "AWS::IAM::ManagedPolicy":
			physical = n.PolicyARN(r.Properties["ManagedPolicyName"].(string))
		case "AWS::SQS::Queue":
			physical = "https://sqs." + n.Region + ".amazonaws.com/" + n.Account + "/" + r.Properties["QueueName"].(string)
		case "AWS::Events::Rule":
			physical = "Karpenter-" + n.Cluster + "-" + logical + "-1AB2CD3EF4GH"
		}
		resources = append(resources, map[string]any{"LogicalResourceId": logical, "PhysicalResourceId": physical, "ResourceType": r.Type, "ResourceStatus": "CREATE_COMPLETE"})
	}
	return map[string]any{
		"cfn-stack-" + stack + ".json": map[string]any{"Stacks": []any{map[string]any{"StackName": stack, "StackStatus": "CREATE_COMPLETE",
			"Parameters": []any{map[string]any{"ParameterKey": "ClusterName", "ParameterValue": n.Cluster}}}}},
		"cfn-resources-" + stack + ".json": map[string]any{"StackResources": resources},
		"cfn-template-" + stack + ".json":  map[string]any{"TemplateBody": string(body)},
	}
}

// previewOf is what deploying e's bundle does to the captured stacks.
func previewOf(t *testing.T, e *model.Env, f map[string]any) []cfnpreview.Change {
	l, err := doctor.Live(e, doctor.NewState(os.DirFS(writeState(t, f)), "state"))
	if err != nil {
		t.Fatal(err)
	}
	b, err := generators.Render(e)
	if err != nil {
		t.Fatal(err)
	}
	changes, ok, err := l.Preview(e, b.Files[model.FileCloudFormation])
	if err != nil || !ok {
		t.Fatalf("preview: %v (captured: %v)", err, ok)
	}
	return changes
}

func lines(cs []cfnpreview.Change) []string {
	var out []string
	for _, c := range cs {
		out = append(out, string(c.Action)+" "+c.Logical+" ("+c.Type+" "+c.Name+"): "+c.Why)
	}
	return out
}

// TestPreviewOverGettingStartedStacks holds the preview to every
// getting-started template of the reference (0.31 to 0.37, 1.0 to
// 1.14): a profile that adopts nothing deploys over the stack of its own
// release (1.0 over the 0.x ones) and deletes, replaces or fails on
// nothing the controller or the nodes use but 0.31's instance profile
// (the bundle keeps upstream's logical IDs and names; the rules, which
// CloudFormation named, are replaced by named ones); a profile that
// adopts the stack's queue and node role, as import writes it, deploys
// to a stack of its own and collides with none of its names.
func TestPreviewOverGettingStartedStacks(t *testing.T) {
	templates, err := filepath.Glob(filepath.Join("..", "..", "reference", "karpenter", "*", "cloudformation.yaml"))
	if err != nil || len(templates) < 21 {
		t.Fatalf("%d templates (%v)", len(templates), err)
	}
	for _, tmpl := range templates {
		release := filepath.Base(filepath.Dir(tmpl))
		t.Run(release, func(t *testing.T) {
			p := *prodEnv(t).Profile
			p.Karpenter.Version = strings.TrimPrefix(release, "v")
			if !strings.HasPrefix(release, "v1.") {
				p.Karpenter.Version = "1.0.14"
			}
			e := model.Resolve(&p)
			f := gettingStartedCapture(t, e, release)
			changes := previewOf(t, e, f)
			// Before 0.32 the stack made the nodes' instance profile;
			// from 0.32 Karpenter makes its own from the role, and the
			// bundle has none: CloudFormation deletes it, which is
			// harmless only once no node launched with it is left (the
			// upgrade from 0.31 deploys the IAM after the last Machine).
			var want []string
			if release == "gettingstarted-v0.31.4" {
				want = []string{"delete KarpenterNodeInstanceProfile (AWS::IAM::InstanceProfile KarpenterNodeInstanceProfile-ws-prod): the template no longer names it"}
			}
			if got := lines(cfnpreview.Harmful(changes)); !slices.Equal(got, want) {
				t.Errorf("over the getting-started stack of %s:\n%s\nwant:\n%s", release, strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
			var replaced []string
			for _, c := range changes {
				if c.Action == cfnpreview.Replace || c.Action == cfnpreview.Delete {
					replaced = append(replaced, string(c.Action)+" "+c.Logical)
				}
			}
			t.Logf("%s: %s; %s", release, cfnpreview.Counts(changes), strings.Join(replaced, ", "))

			p.Karpenter.ExistingInterruptionQueue = e.Names.Cluster
			p.Karpenter.ExistingNodeRole = "KarpenterNodeRole-" + e.Names.Cluster
			a := model.Resolve(&p)
			describe := "cfn-stack-" + a.Names.Stack + ".json"
			f[describe] = map[string]any{"error": map[string]any{"code": "ValidationError", "message": "An error occurred (ValidationError) when calling the DescribeStacks operation: Stack with id " + a.Names.Stack + " does not exist"}}
			own := previewOf(t, a, f)
			for _, c := range own {
				if c.Action != cfnpreview.Add {
					t.Errorf("own stack %s: %s %s: %s", a.Names.Stack, c.Action, c.Logical, c.Why)
				}
			}
		})
	}
}

// TestPreviewFindsHarm: the preview says what CloudFormation would do
// where it harms: a profile that adopts the getting-started queue but
// not its node role deploys to a stack of its own whose node role takes
// a name the getting-started stack holds (the update fails and rolls
// back); over a stack whose node role has another name, the role is
// replaced under the nodes.
func TestPreviewFindsHarm(t *testing.T) {
	p := *prodEnv(t).Profile
	p.Karpenter.Version = "1.14.3"
	e := model.Resolve(&p)
	n := e.Names
	f := gettingStartedCapture(t, e, "v1.14.3")
	p.Karpenter.ExistingInterruptionQueue = n.Cluster
	a := model.Resolve(&p)
	f["cfn-stack-"+a.Names.Stack+".json"] = map[string]any{"error": map[string]any{"code": "ValidationError", "message": "Stack with id " + a.Names.Stack + " does not exist"}}
	got := lines(cfnpreview.Harmful(previewOf(t, a, f)))
	want := []string{"fails KarpenterNodeRole (AWS::IAM::Role KarpenterNodeRole-ws-prod): stack Karpenter-ws-prod (its KarpenterNodeRole) holds the name KarpenterNodeRole-ws-prod already: \"already exists\", and the update rolls back"}
	if !slices.Equal(got, want) {
		t.Errorf("own stack beside the getting-started one:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	f = gettingStartedCapture(t, e, "v1.14.3")
	res := f["cfn-resources-Karpenter-ws-prod.json"].(map[string]any)["StackResources"].([]any)
	for _, r := range res {
		if r.(map[string]any)["LogicalResourceId"] == "KarpenterNodeRole" {
			r.(map[string]any)["PhysicalResourceId"] = "KarpenterNodeRole-ws-prod-old"
		}
	}
	got = lines(cfnpreview.Harmful(previewOf(t, e, f)))
	want = []string{"replace KarpenterNodeRole (AWS::IAM::Role KarpenterNodeRole-ws-prod-old): RoleName changes, which replaces it: a new one is created, then KarpenterNodeRole-ws-prod-old is deleted (new name KarpenterNodeRole-ws-prod)"}
	if !slices.Equal(got, want) {
		t.Errorf("a node role of another name:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
