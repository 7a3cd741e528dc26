package generators

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"unicode"

	"github.com/karpgen/karpgen/internal/iam/iampolicy"
	"github.com/karpgen/karpgen/internal/model"
	"github.com/karpgen/karpgen/internal/profile"
)

// CloudFormation is a template with everything the bundle's IAM files
// describe: node role, controller role and its policies, interruption
// queue with its policy and rules, and how nodes and the controller are
// wired to the cluster. It is built from the same values as the files, so
// `aws cloudformation deploy` creates exactly what the Helm values name.
func CloudFormation(e *model.Env) obj {
	return cloudFormation(e, iampolicy.ControllerPolicies(e.Facts, e.Names, e.IAMGates))
}

// cloudFormation is the template with the controller policies the
// bundle already made (splitting them by size is not free).
func cloudFormation(e *model.Env, policies []iampolicy.ControllerPolicy) obj {
	p, m, n := e.Profile, e.Facts, e.Names
	res := obj{}
	var created []string // logical IDs of the roles the template creates
	for _, r := range n.NodeRoles() {
		if r.Exists {
			continue
		}
		id := NodeRoleLogicalID(n, r.Name)
		created = append(created, id)
		res[id] = obj{"Type": "AWS::IAM::Role", "Properties": obj{
			"RoleName":                 r.Name,
			"Path":                     "/",
			"AssumeRolePolicyDocument": NodeTrustPolicy(n),
			"ManagedPolicyArns":        NodeManagedPolicies(m, n, r)["ManagedPolicyArns"],
		}}
		if p.Karpenter.NodeAccess == profile.AccessEntry {
			res[strings.Replace(id, "NodeRole", "NodeAccessEntry", 1)] = obj{"Type": "AWS::EKS::AccessEntry", "Properties": obj{
				"ClusterName":  n.Cluster,
				"PrincipalArn": obj{"Fn::GetAtt": strs(id, "Arn")},
				"Type":         AccessEntryType(e.Windows),
			}}
		}
	}
	var policyRefs []any
	for _, cp := range policies {
		logical := cp.LogicalID
		props := obj{
			"ManagedPolicyName": cp.Name,
			"Path":              "/",
			"PolicyDocument":    cp.Document,
		}
		// An existing controller role gets the policies attached by name.
		if n.ControllerRoleExists {
			props["Roles"] = strs(n.ControllerRole)
		}
		res[logical] = obj{"Type": "AWS::IAM::ManagedPolicy", "Properties": props}
		policyRefs = append(policyRefs, obj{"Ref": logical})
	}
	controllerRoleARN := any(obj{"Fn::GetAtt": strs("KarpenterControllerRole", "Arn")})
	if n.ControllerRoleExists {
		controllerRoleARN = n.ControllerRoleARN
	} else {
		res["KarpenterControllerRole"] = obj{"Type": "AWS::IAM::Role", "Properties": obj{
			"RoleName":                 n.ControllerRole,
			"Path":                     "/",
			"AssumeRolePolicyDocument": ControllerTrustPolicy(e),
			"ManagedPolicyArns":        policyRefs,
		}}
	}
	// The organization's boundary caps both roles the template creates.
	if b := n.BoundaryARN; b != "" {
		for _, role := range append(created, "KarpenterControllerRole") {
			if r, ok := res[role].(obj); ok {
				r["Properties"].(obj)["PermissionsBoundary"] = b
			}
		}
	}
	// An existing queue comes with its rules: the bundle creates neither.
	if n.Queue != "" && !n.QueueExists {
		queueArn := obj{"Fn::GetAtt": strs("KarpenterInterruptionQueue", "Arn")}
		res["KarpenterInterruptionQueue"] = obj{"Type": "AWS::SQS::Queue", "Properties": obj{
			"QueueName":              n.Queue,
			"MessageRetentionPeriod": 300,
			"SqsManagedSseEnabled":   true,
		}}
		res["KarpenterInterruptionQueuePolicy"] = obj{"Type": "AWS::SQS::QueuePolicy", "Properties": obj{
			"Queues":         []any{obj{"Ref": "KarpenterInterruptionQueue"}},
			"PolicyDocument": InterruptionQueuePolicy(n),
		}}
		for _, r := range m.InterruptionRules {
			res[r.Name] = obj{"Type": "AWS::Events::Rule", "Properties": obj{
				"Name":         n.RuleName(r),
				"EventPattern": ruleEventPattern(r),
				"Targets":      []any{obj{"Id": "KarpenterInterruptionQueueTarget", "Arn": queueArn}},
			}}
		}
	}
	if p.Karpenter.Auth == profile.AuthPodIdentity && n.Association == "" {
		res["KarpenterPodIdentityAssociation"] = obj{"Type": "AWS::EKS::PodIdentityAssociation", "Properties": obj{
			"ClusterName":    n.Cluster,
			"Namespace":      n.Namespace,
			"ServiceAccount": n.ServiceAccount,
			"RoleArn":        controllerRoleARN,
		}}
	}
	return obj{
		"AWSTemplateFormatVersion": "2010-09-09",
		"Description":              "Karpenter " + m.Minor + " IAM and interruption handling for EKS cluster " + n.Cluster + " (karpgen)",
		"Resources":                res,
	}
}

// NodeRoleLogicalID is the template's logical ID of a node role, the same
// for a role whatever other roles the profile adds: KarpenterNodeRole for
// the environment's, else the role's name in letters and digits, with
// 8 hex digits of its SHA-256 when that dropped characters (so that
// "gpu-a" and "gpua" stay two resources).
func NodeRoleLogicalID(n model.Names, role string) string {
	if role == n.NodeRole {
		return "KarpenterNodeRole"
	}
	var b strings.Builder
	for _, c := range role {
		if c < 128 && (unicode.IsLetter(c) || unicode.IsDigit(c)) {
			b.WriteRune(c)
		}
	}
	id := b.String()
	if id != role {
		sum := sha256.Sum256([]byte(role))
		id += hex.EncodeToString(sum[:4])
	}
	return "KarpenterNodeRole" + id
}
