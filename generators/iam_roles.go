package generators

import (
	"github.com/karpgen/karpgen/internal/facts"
	"github.com/karpgen/karpgen/internal/iam/iampolicy"
	"github.com/karpgen/karpgen/internal/model"
	"github.com/karpgen/karpgen/internal/profile"
)

// NodeTrustPolicy lets EC2 instances assume the node role.
func NodeTrustPolicy(n model.Names) obj {
	return iampolicy.Document([]obj{{
		"Effect":    "Allow",
		"Principal": obj{"Service": n.EC2Principal},
		"Action":    strs("sts:AssumeRole"),
	}})
}

// NodeManagedPolicies lists the managed policy ARNs of a node role: the
// version's node policies, then the role's own.
func NodeManagedPolicies(m *facts.Minor, n model.Names, r model.NodeRole) obj {
	arns := make([]any, 0, len(m.NodeRolePolicies)+len(r.Policies))
	for _, p := range m.NodeRolePolicies {
		arns = append(arns, n.ManagedPolicyARN(p))
	}
	for _, p := range r.Policies {
		arns = append(arns, p)
	}
	doc := obj{"RoleName": r.Name, "RoleArn": r.ARN, "ManagedPolicyArns": arns}
	if n.BoundaryARN != "" {
		doc["PermissionsBoundary"] = n.BoundaryARN
	}
	return doc
}

// ControllerTrustPolicy lets the controller's service account assume the
// controller role, through IRSA (OIDC) or EKS Pod Identity.
func ControllerTrustPolicy(e *model.Env) obj {
	n := e.Names
	if e.Profile.Karpenter.Auth == profile.AuthIRSA {
		return iampolicy.Document([]obj{{
			"Effect":    "Allow",
			"Principal": obj{"Federated": n.OIDCProviderARN},
			"Action":    "sts:AssumeRoleWithWebIdentity",
			"Condition": obj{"StringEquals": obj{
				n.OIDCIssuerHost + ":aud": model.STSAudience,
				n.OIDCIssuerHost + ":sub": "system:serviceaccount:" + n.Namespace + ":" + n.ServiceAccount,
			}},
		}})
	}
	return iampolicy.Document([]obj{{
		"Effect":    "Allow",
		"Principal": obj{"Service": model.PodIdentityPrincipal},
		"Action":    strs("sts:AssumeRole", "sts:TagSession"),
	}})
}

// PodIdentityAssociation is the input of `aws eks create-pod-identity-association`.
func PodIdentityAssociation(n model.Names) obj {
	return obj{"clusterName": n.Cluster, "namespace": n.Namespace, "serviceAccount": n.ServiceAccount, "roleArn": n.ControllerRoleARN}
}

// AccessEntryType is the type of the nodes' access entry. An IAM
// principal has one access entry, and EC2_WINDOWS's Kubernetes groups are
// EC2_LINUX's and eks:kube-proxy-windows: a role that launches Windows
// nodes gets EC2_WINDOWS, which lets its Linux nodes join too.
func AccessEntryType(windows bool) string {
	if windows {
		return "EC2_WINDOWS"
	}
	return "EC2_LINUX"
}

// AccessEntry is the input of `aws eks create-access-entry` for a node
// role's nodes.
func AccessEntry(n model.Names, r model.NodeRole, windows bool) obj {
	return obj{"clusterName": n.Cluster, "principalArn": r.ARN, "type": AccessEntryType(windows)}
}

// AWSAuthMapRoles are the aws-auth ConfigMap entries that let the nodes
// of the node roles the bundle creates join; Windows nodes need
// eks:kube-proxy-windows too.
func AWSAuthMapRoles(n model.Names, windows bool) []any {
	groups := strs("system:bootstrappers", "system:nodes")
	if windows {
		groups = append(groups, "eks:kube-proxy-windows")
	}
	var out []any
	for _, r := range n.NodeRoles() {
		if r.Exists {
			continue
		}
		out = append(out, obj{
			"rolearn":  r.ARN,
			"username": "system:node:{{EC2PrivateDNSName}}",
			"groups":   groups,
		})
	}
	return out
}

// InterruptionQueuePolicy lets EventBridge and SQS deliver to the queue and
// refuses any access without TLS.
func InterruptionQueuePolicy(n model.Names) obj {
	return obj{
		"Version": iampolicy.Version,
		"Id":      "EC2InterruptionPolicy",
		"Statement": []any{
			obj{
				"Effect":    "Allow",
				"Principal": obj{"Service": strs(model.EventsPrincipal, model.SQSPrincipal)},
				"Action":    "sqs:SendMessage",
				"Resource":  n.QueueARN,
			},
			obj{
				"Sid":       "DenyHTTP",
				"Effect":    "Deny",
				"Action":    "sqs:*",
				"Resource":  n.QueueARN,
				"Condition": obj{"Bool": obj{"aws:SecureTransport": false}},
				"Principal": "*",
			},
		},
	}
}

// Queue describes the interruption SQS queue.
func Queue(n model.Names) obj {
	return obj{"QueueName": n.Queue, "QueueArn": n.QueueARN, "MessageRetentionPeriod": 300, "SqsManagedSseEnabled": true}
}

// InterruptionRules are the EventBridge rules of the minor, each targeting
// the queue.
func InterruptionRules(m *facts.Minor, n model.Names) []any {
	out := make([]any, len(m.InterruptionRules))
	for i, r := range m.InterruptionRules {
		out[i] = obj{
			"Name":         n.RuleName(r),
			"EventPattern": ruleEventPattern(r),
			"Targets":      []any{obj{"Id": "KarpenterInterruptionQueueTarget", "Arn": n.QueueARN}},
		}
	}
	return out
}

func ruleEventPattern(r facts.Rule) obj {
	return obj{"source": strs(r.Source), "detail-type": strs(r.DetailType)}
}
