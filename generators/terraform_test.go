package generators_test

import (
	"encoding/json"
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/karpgen/karpgen/generators"
	"github.com/karpgen/karpgen/internal/facts"
	"github.com/karpgen/karpgen/internal/model"
	"github.com/karpgen/karpgen/internal/profile"
)

// TestTerraformIsTheTemplate renders every minor × auth × interruption ×
// partition × node access mode, with and without what a profile can
// adopt and a permissions boundary, and holds iam/terraform/main.tf.json
// to iam/cloudformation.yaml: each resource of the template is the
// module's resource of the same name, with the same names and every
// document equal statement for statement; what the template leaves out
// because the profile adopts it, the module reads as a data source; and
// the module holds nothing else but the role attachments.
func TestTerraformIsTheTemplate(t *testing.T) {
	eachVariant(t, func(t *testing.T, variant func() *profile.Profile) {
		for _, adopt := range []bool{false, true} {
			t.Run(fmt.Sprintf("adopt=%v", adopt), func(t *testing.T) {
				p := variant()
				region := p.Cluster.Region
				p.Karpenter.NodeRoles = map[string]profile.NodeRole{
					"gpu-nodes": {Policies: []string{"arn:" + facts.PartitionOf(region) + ":iam::491085395789:policy/gpu-telemetry"}},
					"legacy":    {Existing: true},
				}
				if adopt {
					p.Karpenter.ExistingControllerRole = "platform-karpenter"
					p.Karpenter.ExistingNodeRole = "platform-nodes"
					if p.Karpenter.InterruptionQueue {
						p.Karpenter.ExistingInterruptionQueue = "platform-interruptions"
					}
					p.IAM.PermissionsBoundary = "arn:" + facts.PartitionOf(region) + ":iam::491085395789:policy/boundary"
				}
				e := model.Resolve(p)
				b, err := generators.Render(e)
				if err != nil {
					t.Fatal(err)
				}
				checkTerraform(t, b, e.Names)
			})
		}
	})
}

// tfModule is main.tf.json as read back: strings unescaped.
type tfModule struct {
	Locals   map[string]any                       `json:"locals"`
	Resource map[string]map[string]map[string]any `json:"resource"`
	Data     map[string]map[string]map[string]any `json:"data"`
}

var jsonencodeRE = regexp.MustCompile(`^\$\{jsonencode\(local\.(\w+)\)\}$`)

// document is what a module argument passes through jsonencode.
func (m tfModule) document(t *testing.T, v any) any {
	t.Helper()
	s, _ := v.(string)
	g := jsonencodeRE.FindStringSubmatch(s)
	if g == nil {
		t.Fatalf("%v is not jsonencode of a local", v)
	}
	doc, ok := m.Locals[g[1]]
	if !ok {
		t.Fatalf("no local %s", g[1])
	}
	return unescape(doc)
}

// unescape undoes the escaping of a template's literal text.
func unescape(v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, x := range v {
			out[unescape(k).(string)] = unescape(x)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = unescape(x)
		}
		return out
	case string:
		return strings.NewReplacer("$${", "${", "%%{", "%{").Replace(v)
	}
	return v
}

// normal is a document as JSON reads it (numbers as float64).
func normal(t *testing.T, v any) any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

func checkTerraform(t *testing.T, b *model.Bundle, n model.Names) {
	t.Helper()
	var cfn struct {
		Resources map[string]struct {
			Type       string         `json:"Type"`
			Properties map[string]any `json:"Properties"`
		} `json:"Resources"`
	}
	fromYAML(t, b.Files[model.FileCloudFormation], &cfn)
	var mod tfModule
	if err := json.Unmarshal(b.Files[model.FileTerraform], &mod); err != nil {
		t.Fatal(err)
	}
	same := func(what string, got, want any) {
		t.Helper()
		if !reflect.DeepEqual(normal(t, got), normal(t, want)) {
			t.Errorf("%s: module has %v, template has %v", what, got, want)
		}
	}
	resource := func(typ, name string) map[string]any {
		t.Helper()
		r, ok := mod.Resource[typ][name]
		if !ok {
			t.Fatalf("module has no %s.%s", typ, name)
		}
		return r
	}
	seen := map[string]bool{}
	use := func(typ, name string) map[string]any { seen[typ+"."+name] = true; return resource(typ, name) }
	// attached are the policies the module attaches to the role an
	// attachment names (a reference or a data source), by policy ARN or
	// reference.
	attached := func(role string) []string {
		var out []string
		for name, a := range mod.Resource["aws_iam_role_policy_attachment"] {
			if a["role"] != "${"+role+".name}" {
				continue
			}
			seen["aws_iam_role_policy_attachment."+name] = true
			if fe, ok := a["for_each"].(map[string]any); ok {
				for k, v := range fe {
					if k != v {
						t.Errorf("attachment %s: key %s is not its policy %v", name, k, v)
					}
					out = append(out, v.(string))
				}
				continue
			}
			out = append(out, a["policy_arn"].(string))
		}
		sort.Strings(out)
		return out
	}
	ref := func(v any) string {
		switch v := v.(type) {
		case map[string]any:
			if r, ok := v["Ref"]; ok {
				return "${aws_iam_policy." + r.(string) + ".arn}"
			}
		case string:
			return v
		}
		return fmt.Sprint(v)
	}
	for id, r := range cfn.Resources {
		p := r.Properties
		switch r.Type {
		case "AWS::IAM::Role":
			role := use("aws_iam_role", id)
			same(id+" name", role["name"], p["RoleName"])
			same(id+" path", role["path"], p["Path"])
			same(id+" trust", mod.document(t, role["assume_role_policy"]), p["AssumeRolePolicyDocument"])
			same(id+" boundary", role["permissions_boundary"], p["PermissionsBoundary"])
			var want []string
			for _, a := range p["ManagedPolicyArns"].([]any) {
				want = append(want, ref(a))
			}
			sort.Strings(want)
			same(id+" policies", attached("aws_iam_role."+id), want)
		case "AWS::IAM::ManagedPolicy":
			pol := use("aws_iam_policy", id)
			same(id+" name", pol["name"], p["ManagedPolicyName"])
			same(id+" path", pol["path"], p["Path"])
			same(id+" document", mod.document(t, pol["policy"]), p["PolicyDocument"])
			if roles, ok := p["Roles"].([]any); ok {
				same(id+" adopted role", []any{mod.Data["aws_iam_role"]["KarpenterControllerRole"]["name"]}, roles)
				if !slices.Contains(attached("data.aws_iam_role.KarpenterControllerRole"), "${aws_iam_policy."+id+".arn}") {
					t.Errorf("%s is not attached to the adopted controller role", id)
				}
			}
		case "AWS::SQS::Queue":
			q := use("aws_sqs_queue", id)
			same(id+" name", q["name"], p["QueueName"])
			same(id+" retention", q["message_retention_seconds"], p["MessageRetentionPeriod"])
			same(id+" encryption", q["sqs_managed_sse_enabled"], p["SqsManagedSseEnabled"])
		case "AWS::SQS::QueuePolicy":
			qp := use("aws_sqs_queue_policy", id)
			same(id+" queue", qp["queue_url"], "${aws_sqs_queue."+p["Queues"].([]any)[0].(map[string]any)["Ref"].(string)+".id}")
			same(id+" document", mod.document(t, qp["policy"]), p["PolicyDocument"])
		case "AWS::Events::Rule":
			rule := use("aws_cloudwatch_event_rule", id)
			same(id+" name", rule["name"], p["Name"])
			same(id+" pattern", mod.document(t, rule["event_pattern"]), p["EventPattern"])
			target := use("aws_cloudwatch_event_target", id)
			tt := p["Targets"].([]any)[0].(map[string]any)
			same(id+" target", []any{target["target_id"], target["arn"], target["rule"]},
				[]any{tt["Id"], "${aws_sqs_queue." + tt["Arn"].(map[string]any)["Fn::GetAtt"].([]any)[0].(string) + ".arn}", "${aws_cloudwatch_event_rule." + id + ".name}"})
		case "AWS::EKS::AccessEntry":
			e := use("aws_eks_access_entry", id)
			same(id, []any{e["cluster_name"], e["principal_arn"], e["type"]},
				[]any{p["ClusterName"], "${aws_iam_role." + p["PrincipalArn"].(map[string]any)["Fn::GetAtt"].([]any)[0].(string) + ".arn}", p["Type"]})
		case "AWS::EKS::PodIdentityAssociation":
			a := use("aws_eks_pod_identity_association", id)
			role := "${data.aws_iam_role.KarpenterControllerRole.arn}"
			if g, ok := p["RoleArn"].(map[string]any); ok {
				role = "${aws_iam_role." + g["Fn::GetAtt"].([]any)[0].(string) + ".arn}"
			}
			same(id, []any{a["cluster_name"], a["namespace"], a["service_account"], a["role_arn"]},
				[]any{p["ClusterName"], p["Namespace"], p["ServiceAccount"], role})
		default:
			t.Errorf("template resource %s of type %s has no counterpart", id, r.Type)
		}
	}
	for typ, byName := range mod.Resource {
		for name := range byName {
			if !seen[typ+"."+name] {
				t.Errorf("module resource %s.%s is not in the template", typ, name)
			}
		}
	}
	// What the template leaves to the account, the module reads.
	var adopted []string
	for name, d := range mod.Data["aws_iam_role"] {
		adopted = append(adopted, "role "+name+"="+d["name"].(string))
	}
	for name, d := range mod.Data["aws_sqs_queue"] {
		adopted = append(adopted, "queue "+name+"="+d["name"].(string))
	}
	sort.Strings(adopted)
	var want []string
	for _, r := range n.NodeRoles() {
		if r.Exists {
			want = append(want, "role "+generators.NodeRoleLogicalID(n, r.Name)+"="+r.Name)
		}
	}
	if n.ControllerRoleExists {
		want = append(want, "role KarpenterControllerRole="+n.ControllerRole)
	}
	if n.QueueExists {
		want = append(want, "queue KarpenterInterruptionQueue="+n.Queue)
	}
	sort.Strings(want)
	same("adopted", adopted, want)
}
