package facts

// NodeStatement is one statement of an AWS managed policy a node role
// may hold: what it allows, on which resources ("*", or "service:
// resource" for the ARNs of that resource in any region and account).
type NodeStatement struct {
	Actions   []string
	Resources []string
}

// NodeManagedPolicies are the default versions of the AWS managed
// policies a node role holds, or holds instead (an adopted role made by
// an earlier getting-started stack, or by hand), by name. An adopted
// role is judged by whether its policies allow what these allow, not by
// their names: ECR's read-only, power-user and full-access policies each
// allow the pulls of PullOnly, which 1.4 moved the node role to.
//
// From AWS's managed policy reference: AmazonEKSWorkerNodePolicy v3
// (2023-11-27), AmazonEKSWorkerNodeMinimalPolicy v1 (2024-10-02),
// AmazonEKS_CNI_Policy v5 (2024-03-04), AmazonEC2ContainerRegistryPullOnly
// v1 (2024-10-04), AmazonEC2ContainerRegistryReadOnly v3 and PowerUser v3
// (2019-12-10), AmazonSSMManagedInstanceCore v2 (2019-05-23); of
// AmazonEC2ContainerRegistryFullAccess only its ecr:* statement.
// PullOnly also allows ecr:BatchImportUpstreamImage, which only a pull
// through a pull-through cache rule asks for and ReadOnly lacks; the
// table leaves it out, so that a role made with ReadOnly, as
// getting-started stacks before 1.4 made it, is not judged short of it.
var NodeManagedPolicies = map[string][]NodeStatement{
	"AmazonEKSWorkerNodePolicy": {{Resources: anyResource, Actions: []string{
		"ec2:DescribeInstances", "ec2:DescribeInstanceTypes", "ec2:DescribeRouteTables", "ec2:DescribeSecurityGroups",
		"ec2:DescribeSubnets", "ec2:DescribeVolumes", "ec2:DescribeVolumesModifications", "ec2:DescribeVpcs",
		"eks:DescribeCluster", "eks-auth:AssumeRoleForPodIdentity",
	}}},
	"AmazonEKSWorkerNodeMinimalPolicy": {{Resources: anyResource, Actions: []string{"eks-auth:AssumeRoleForPodIdentity"}}},
	"AmazonEKS_CNI_Policy": {
		{Resources: anyResource, Actions: []string{
			"ec2:AssignPrivateIpAddresses", "ec2:AttachNetworkInterface", "ec2:CreateNetworkInterface", "ec2:DeleteNetworkInterface",
			"ec2:DescribeInstances", "ec2:DescribeTags", "ec2:DescribeNetworkInterfaces", "ec2:DescribeInstanceTypes",
			"ec2:DescribeSubnets", "ec2:DetachNetworkInterface", "ec2:ModifyNetworkInterfaceAttribute", "ec2:UnassignPrivateIpAddresses",
		}},
		{Resources: []string{"ec2:network-interface/*"}, Actions: []string{"ec2:CreateTags"}},
	},
	"AmazonEC2ContainerRegistryPullOnly": {{Resources: anyResource, Actions: ecrPulls}},
	"AmazonEC2ContainerRegistryReadOnly": {{Resources: anyResource, Actions: ecrReads}},
	"AmazonEC2ContainerRegistryPowerUser": {{Resources: anyResource, Actions: append(append([]string{}, ecrReads...),
		"ecr:InitiateLayerUpload", "ecr:UploadLayerPart", "ecr:CompleteLayerUpload", "ecr:PutImage")}},
	"AmazonEC2ContainerRegistryFullAccess": {{Resources: anyResource, Actions: []string{"ecr:*"}}},
	"AmazonSSMManagedInstanceCore": {{Resources: anyResource, Actions: []string{
		"ssm:DescribeAssociation", "ssm:GetDeployablePatchSnapshotForInstance", "ssm:GetDocument", "ssm:DescribeDocument",
		"ssm:GetManifest", "ssm:GetParameter", "ssm:GetParameters", "ssm:ListAssociations", "ssm:ListInstanceAssociations",
		"ssm:PutInventory", "ssm:PutComplianceItems", "ssm:PutConfigurePackageResult", "ssm:UpdateAssociationStatus",
		"ssm:UpdateInstanceAssociationStatus", "ssm:UpdateInstanceInformation",
		"ssmmessages:CreateControlChannel", "ssmmessages:CreateDataChannel", "ssmmessages:OpenControlChannel", "ssmmessages:OpenDataChannel",
		"ec2messages:AcknowledgeMessage", "ec2messages:DeleteMessage", "ec2messages:FailMessage", "ec2messages:GetEndpoint",
		"ec2messages:GetMessages", "ec2messages:SendReply",
	}}},
}

var (
	anyResource = []string{"*"}
	ecrPulls    = []string{"ecr:GetAuthorizationToken", "ecr:BatchGetImage", "ecr:GetDownloadUrlForLayer"}
	ecrReads    = []string{
		"ecr:GetAuthorizationToken", "ecr:BatchCheckLayerAvailability", "ecr:GetDownloadUrlForLayer", "ecr:GetRepositoryPolicy",
		"ecr:DescribeRepositories", "ecr:ListImages", "ecr:DescribeImages", "ecr:BatchGetImage", "ecr:GetLifecyclePolicy",
		"ecr:GetLifecyclePolicyPreview", "ecr:ListTagsForResource", "ecr:DescribeImageScanFindings",
	}
)
