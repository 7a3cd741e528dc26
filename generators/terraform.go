package generators

import (
	"fmt"
	"strings"

	"github.com/karpgen/karpgen/internal/iam/iampolicy"
	"github.com/karpgen/karpgen/internal/model"
	"github.com/karpgen/karpgen/internal/profile"
)

// TerraformProvider is the AWS provider the module is written for: 5.x
// from 5.33 (the first with aws_eks_access_entry; aws_eks_pod_identity_association
// came in 5.29) and 6.x, so that it sits in one root with terraform-aws-eks
// v20 (< 6.0) or v21. It is validated against both majors' schemas
// (reference/terraform, reference/terraform/v5).
const TerraformProvider = ">= 5.33, < 7.0"

// terraform is iam/terraform/main.tf.json, the module that creates what
// iam/cloudformation.yaml creates, for teams whose IAM is Terraform's:
// the same roles, policies, queue, rules, access entries and Pod Identity
// association, under the same names and with the same documents. Every
// resource's name in the module is its logical ID in the template, so a
// resource has one name in both. What the profile adopts
// (karpenter.existing*) is read with a data source, so a plan fails
// where the account lacks it instead of creating a second one. The
// policies are those the bundle made.
func terraform(e *model.Env, policies []iampolicy.ControllerPolicy) obj {
	p, m, n := e.Profile, e.Facts, e.Names
	res := map[string]obj{} // resource type → name → arguments
	data := map[string]obj{}
	// Documents are locals, written out as JSON objects so that a change
	// to one statement is one line of a diff; an argument takes its
	// document through jsonencode.
	locals := obj{}
	document := func(name string, doc obj) tfRef {
		locals[name] = doc
		return tfRef("jsonencode(local." + name + ")")
	}
	add := func(into map[string]obj, typ, name string, args obj) {
		if into[typ] == nil {
			into[typ] = obj{}
		}
		into[typ][name] = args
	}
	boundary := func(args obj) obj {
		if n.BoundaryARN != "" {
			args["permissions_boundary"] = n.BoundaryARN
		}
		return args
	}

	for _, r := range n.NodeRoles() {
		id := NodeRoleLogicalID(n, r.Name)
		if r.Exists {
			add(data, "aws_iam_role", id, obj{"name": r.Name})
			continue
		}
		add(res, "aws_iam_role", id, boundary(obj{
			"name":               r.Name,
			"path":               "/",
			"assume_role_policy": document(id+"Trust", NodeTrustPolicy(n)),
		}))
		arns := obj{}
		for _, a := range NodeManagedPolicies(m, n, r)["ManagedPolicyArns"].([]any) {
			arns[a.(string)] = a
		}
		add(res, "aws_iam_role_policy_attachment", id, obj{
			"for_each":   arns,
			"role":       tfRef("aws_iam_role." + id + ".name"),
			"policy_arn": tfRef("each.value"),
		})
		if p.Karpenter.NodeAccess == profile.AccessEntry {
			add(res, "aws_eks_access_entry", strings.Replace(id, "NodeRole", "NodeAccessEntry", 1), obj{
				"cluster_name":  n.Cluster,
				"principal_arn": tfRef("aws_iam_role." + id + ".arn"),
				"type":          AccessEntryType(e.Windows),
			})
		}
	}

	controller := tfRef("aws_iam_role.KarpenterControllerRole")
	if n.ControllerRoleExists {
		controller = "data.aws_iam_role.KarpenterControllerRole"
		add(data, "aws_iam_role", "KarpenterControllerRole", obj{"name": n.ControllerRole})
	} else {
		add(res, "aws_iam_role", "KarpenterControllerRole", boundary(obj{
			"name":               n.ControllerRole,
			"path":               "/",
			"assume_role_policy": document("KarpenterControllerRoleTrust", ControllerTrustPolicy(e)),
		}))
	}
	// Each controller policy checks that the provider is configured for
	// the account and region its ARNs name: applied elsewhere, it would
	// grant nothing that works.
	// The region is aws_region's id, the attribute both majors set to it
	// (5.x has no region attribute; 6.x deprecates name).
	where := fmt.Sprintf("data.aws_caller_identity.current.account_id == %q && data.aws_region.current.id == %q", n.Account, n.Region)
	add(data, "aws_caller_identity", "current", obj{})
	add(data, "aws_region", "current", obj{})
	for _, cp := range policies {
		add(res, "aws_iam_policy", cp.LogicalID, obj{
			"name":   cp.Name,
			"path":   "/",
			"policy": document(cp.LogicalID, cp.Document),
			"lifecycle": []any{obj{"precondition": []any{obj{
				"condition":     tfRef(where),
				"error_message": fmt.Sprintf("The bundle of %s is for account %s in %s: configure the aws provider for them.", e.Name, n.Account, n.Region),
			}}}},
		})
		add(res, "aws_iam_role_policy_attachment", cp.LogicalID, obj{
			"role":       controller + ".name",
			"policy_arn": tfRef("aws_iam_policy." + cp.LogicalID + ".arn"),
		})
	}

	if n.Queue != "" && n.QueueExists {
		add(data, "aws_sqs_queue", "KarpenterInterruptionQueue", obj{"name": n.Queue})
	}
	if n.Queue != "" && !n.QueueExists {
		add(res, "aws_sqs_queue", "KarpenterInterruptionQueue", obj{
			"name":                      n.Queue,
			"message_retention_seconds": 300,
			"sqs_managed_sse_enabled":   true,
		})
		add(res, "aws_sqs_queue_policy", "KarpenterInterruptionQueuePolicy", obj{
			"queue_url": tfRef("aws_sqs_queue.KarpenterInterruptionQueue.id"),
			"policy":    document("KarpenterInterruptionQueuePolicy", InterruptionQueuePolicy(n)),
		})
		for _, r := range m.InterruptionRules {
			add(res, "aws_cloudwatch_event_rule", r.Name, obj{
				"name":          n.RuleName(r),
				"event_pattern": document(r.Name+"Pattern", ruleEventPattern(r)),
			})
			add(res, "aws_cloudwatch_event_target", r.Name, obj{
				"rule":      tfRef("aws_cloudwatch_event_rule." + r.Name + ".name"),
				"target_id": "KarpenterInterruptionQueueTarget",
				"arn":       tfRef("aws_sqs_queue.KarpenterInterruptionQueue.arn"),
			})
		}
	}
	if p.Karpenter.Auth == profile.AuthPodIdentity && n.Association == "" {
		add(res, "aws_eks_pod_identity_association", "KarpenterPodIdentityAssociation", obj{
			"cluster_name":    n.Cluster,
			"namespace":       n.Namespace,
			"service_account": n.ServiceAccount,
			"role_arn":        controller + ".arn",
		})
	}

	outputs := obj{
		"controller_role_arn": obj{"value": controller + ".arn", "description": "The role the controller's service account assumes."},
		"node_role_name":      obj{"value": n.NodeRole, "description": "The role of the nodes Karpenter launches (EC2NodeClass spec.role)."},
	}
	if n.Queue != "" {
		outputs["interruption_queue_name"] = obj{"value": n.Queue, "description": "The interruption queue (Helm value settings.interruptionQueue)."}
	}
	comment := "Code generated by karpgen from the profile; DO NOT EDIT. The IAM of " + e.Name + ", as iam/cloudformation.yaml."
	if note := TemplateNote(m); note != "" {
		comment += " " + note
	}
	module := obj{
		"//": comment,
		"terraform": obj{"required_providers": obj{"aws": obj{
			"source":  "hashicorp/aws",
			"version": TerraformProvider,
		}}},
		"locals":   locals,
		"resource": toAny(res),
		"data":     toAny(data),
		"output":   outputs,
	}
	return tfLiteral(module).(obj)
}

// toAny is a map of blocks as the encoder takes it.
func toAny(m map[string]obj) obj {
	out := obj{}
	for k, v := range m {
		out[k] = v
	}
	return out
}

// tfRef is a reference in the module ("aws_iam_role.X.arn"), written as
// an interpolation; every other string is written as a literal.
type tfRef string

// tfLiteral makes the module's values what Terraform's JSON syntax reads:
// a string is a template there, so "${" and "%{" in a literal (a policy
// variable, a value from the profile) are escaped, and a tfRef becomes
// the one interpolation. Map keys are escaped the same way.
func tfLiteral(v any) any {
	switch v := v.(type) {
	case obj:
		out := make(obj, len(v))
		for k, x := range v {
			out[tfEscape(k)] = tfLiteral(x)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = tfLiteral(x)
		}
		return out
	case tfRef:
		return "${" + string(v) + "}"
	case string:
		return tfEscape(v)
	default:
		return v
	}
}

var tfEscaper = strings.NewReplacer("${", "$${", "%{", "%%{")

func tfEscape(s string) string { return tfEscaper.Replace(s) }
