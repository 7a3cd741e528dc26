package model

// The bundle's layout: every file of out/<env>/ another package names
// (the planner writes beside them, the doctor points at them) is named
// here, and the generators write under these names.
const (
	FileNodeClasses     = "ec2nodeclasses.yaml"
	FileNodePools       = "nodepools.yaml"
	FileHeadroom        = "headroom.yaml"
	FileNodeOverlays    = "nodeoverlays.yaml"
	FileCapacityBuffers = "capacitybuffers.yaml"
	FileKustomization   = "kustomization.yaml"
	FileApplication     = "argocd-application.yaml"
	FileSummary         = "SUMMARY.md"
	FileBudgetsSVG      = "budgets.svg"

	DirHelm        = "helm/"
	FileHelmValues = DirHelm + "karpenter-values.yaml"

	DirIAM                = "iam/"
	FileCloudFormation    = DirIAM + "cloudformation.yaml"
	FileTerraform         = DirIAM + "terraform/main.tf.json"
	FileControllerTrust   = DirIAM + "controller-trust-policy.json"
	FileNodeTrust         = DirIAM + "node-trust-policy.json"
	FileNodePolicies      = DirIAM + "node-managed-policies.json"
	FilePodIdentity       = DirIAM + "pod-identity-association.json"
	FileAWSAuth           = DirIAM + "aws-auth-maproles.yaml"
	FileAccessEntry       = DirIAM + "access-entry.json"
	FileQueue             = DirIAM + "interruption-queue.json"
	FileQueuePolicy       = DirIAM + "interruption-queue-policy.json"
	FileInterruptionRules = DirIAM + "interruption-rules.json"
)

// ControllerPolicyFile is the name, in the bundle's iam/ folder, of a
// controller policy: what is "all" for the single policy, the part's
// name ("node-lifecycle"), "split-" and the part's name where karpgen
// splits a policy upstream keeps whole, or "transition-N" for a plan's
// transition policy.
func ControllerPolicyFile(what string) string { return ControllerPolicyPrefix + what + ".json" }

// ControllerPolicyPrefix begins the name of every controller policy's
// file.
const ControllerPolicyPrefix = "controller-policy-"

// IAMFile is the path of a file of the bundle's iam/ folder.
func IAMFile(name string) string { return DirIAM + name }

// NodePoliciesFile is the file of a node role's managed policies:
// FileNodePolicies for the environment's node role, and one named after
// the role for each of karpenter.nodeRoles.
func NodePoliciesFile(n Names, role string) string {
	if role == n.NodeRole {
		return FileNodePolicies
	}
	return DirIAM + "node-managed-policies-" + role + ".json"
}

// AccessEntryFile is the file of a node role's access entry:
// FileAccessEntry for the environment's node role, and one named after
// the role for each of karpenter.nodeRoles.
func AccessEntryFile(n Names, role string) string {
	if role == n.NodeRole {
		return FileAccessEntry
	}
	return DirIAM + "access-entry-" + role + ".json"
}

// HelmValuesFor is the path of the Helm values an upgrade plan writes for
// an intermediate release.
func HelmValuesFor(version string) string { return DirHelm + "karpenter-values-" + version + ".yaml" }
