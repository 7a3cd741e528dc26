package facts

import "strings"

// Regions maps every AWS region karpgen knows to its partition.
var Regions = map[string]string{
	"af-south-1": "aws", "ap-east-1": "aws", "ap-east-2": "aws",
	"ap-northeast-1": "aws", "ap-northeast-2": "aws", "ap-northeast-3": "aws",
	"ap-south-1": "aws", "ap-south-2": "aws",
	"ap-southeast-1": "aws", "ap-southeast-2": "aws", "ap-southeast-3": "aws",
	"ap-southeast-4": "aws", "ap-southeast-5": "aws", "ap-southeast-6": "aws", "ap-southeast-7": "aws",
	"ca-central-1": "aws", "ca-west-1": "aws",
	"eu-central-1": "aws", "eu-central-2": "aws", "eu-north-1": "aws",
	"eu-south-1": "aws", "eu-south-2": "aws",
	"eu-west-1": "aws", "eu-west-2": "aws", "eu-west-3": "aws",
	"il-central-1": "aws", "me-central-1": "aws", "me-south-1": "aws",
	"mx-central-1": "aws", "sa-east-1": "aws",
	"us-east-1": "aws", "us-east-2": "aws", "us-west-1": "aws", "us-west-2": "aws",
	"cn-north-1": "aws-cn", "cn-northwest-1": "aws-cn",
	"us-gov-east-1": "aws-us-gov", "us-gov-west-1": "aws-us-gov",
}

// PartitionOf returns the partition of a region, following its prefix for
// regions not in the table.
func PartitionOf(region string) string {
	if p, ok := Regions[region]; ok {
		return p
	}
	switch {
	case strings.HasPrefix(region, "cn-"):
		return "aws-cn"
	case strings.HasPrefix(region, "us-gov-"):
		return "aws-us-gov"
	}
	return "aws"
}

// RegionOfZone returns the region a zone name belongs to: "us-east-1a"
// and the Local Zone "us-west-2-lax-1a" both give their parent region.
func RegionOfZone(zone string) string {
	best := ""
	for r := range Regions {
		if strings.HasPrefix(zone, r) && len(r) > len(best) {
			rest := zone[len(r):]
			if isZoneSuffix(rest) {
				best = r
			}
		}
	}
	return best
}

func isZoneSuffix(s string) bool {
	if len(s) == 1 {
		return s[0] >= 'a' && s[0] <= 'z'
	}
	if len(s) < 3 || s[0] != '-' {
		return false
	}
	last := s[len(s)-1]
	return last >= 'a' && last <= 'z'
}

// AMIKubernetesMax is, for an AMI family, the newest Kubernetes minor EKS
// publishes its AMIs for; families not listed have AMIs for every
// Kubernetes version Karpenter supports. EKS published no Amazon Linux 2
// AMIs for Kubernetes 1.33 and later.
var AMIKubernetesMax = map[string]string{"al2": "1.32"}
