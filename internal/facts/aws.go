package facts

import "strings"

// Regions are every AWS region karpgen knows, each with the letters of
// the Availability Zones EC2 names in it: region code and letter,
// "ap-northeast-2a" (a region's partition follows from its name,
// PartitionOf). From AWS's "AWS Availability Zones"
// (docs.aws.amazon.com/global-infrastructure, the AZ IDs of each Region,
// 2026) and EC2's DescribeAvailabilityZones: where an older Region maps
// letters to its zones independently per account, every letter an
// account may see is listed (us-west-1 has two zones, named a and b or b
// and c; ap-northeast-1's b is an older account's), and a letter EC2
// retired or never gave is left out (ca-central-1c, cn-north-1c).
var Regions = map[string]string{
	"af-south-1": "abc", "ap-east-1": "abc", "ap-east-2": "abc",
	"ap-northeast-1": "abcd", "ap-northeast-2": "abcd", "ap-northeast-3": "abc",
	"ap-south-1": "abc", "ap-south-2": "abc",
	"ap-southeast-1": "abc", "ap-southeast-2": "abc", "ap-southeast-3": "abc",
	"ap-southeast-4": "abc", "ap-southeast-5": "abc", "ap-southeast-6": "abc", "ap-southeast-7": "abc",
	"ca-central-1": "abd", "ca-west-1": "abc",
	"eu-central-1": "abc", "eu-central-2": "abc", "eu-north-1": "abc",
	"eu-south-1": "abc", "eu-south-2": "abc",
	"eu-west-1": "abc", "eu-west-2": "abc", "eu-west-3": "abc",
	"il-central-1": "abc", "me-central-1": "abc", "me-south-1": "abc",
	"mx-central-1": "abc", "sa-east-1": "abc",
	"us-east-1": "abcdef", "us-east-2": "abc", "us-west-1": "abc", "us-west-2": "abcd",
	"cn-north-1": "abd", "cn-northwest-1": "abc",
	"us-gov-east-1": "abc", "us-gov-west-1": "abc",
}

// RegionTimeZones are the IANA time zones of the places AWS names for its
// regions (the city or country of "Asia Pacific (Seoul)"): the zone a
// team in the region most likely keeps its hours in, which init writes as
// the profile's timeZone.
var RegionTimeZones = map[string]string{
	"af-south-1": "Africa/Johannesburg", "ap-east-1": "Asia/Hong_Kong", "ap-east-2": "Asia/Taipei",
	"ap-northeast-1": "Asia/Tokyo", "ap-northeast-2": "Asia/Seoul", "ap-northeast-3": "Asia/Tokyo",
	"ap-south-1": "Asia/Kolkata", "ap-south-2": "Asia/Kolkata",
	"ap-southeast-1": "Asia/Singapore", "ap-southeast-2": "Australia/Sydney", "ap-southeast-3": "Asia/Jakarta",
	"ap-southeast-4": "Australia/Melbourne", "ap-southeast-5": "Asia/Kuala_Lumpur", "ap-southeast-6": "Pacific/Auckland",
	"ap-southeast-7": "Asia/Bangkok",
	"ca-central-1":   "America/Toronto", "ca-west-1": "America/Edmonton",
	"eu-central-1": "Europe/Berlin", "eu-central-2": "Europe/Zurich", "eu-north-1": "Europe/Stockholm",
	"eu-south-1": "Europe/Rome", "eu-south-2": "Europe/Madrid",
	"eu-west-1": "Europe/Dublin", "eu-west-2": "Europe/London", "eu-west-3": "Europe/Paris",
	"il-central-1": "Asia/Jerusalem", "me-central-1": "Asia/Dubai", "me-south-1": "Asia/Bahrain",
	"mx-central-1": "America/Mexico_City", "sa-east-1": "America/Sao_Paulo",
	"us-east-1": "America/New_York", "us-east-2": "America/New_York", "us-west-1": "America/Los_Angeles", "us-west-2": "America/Los_Angeles",
	"cn-north-1": "Asia/Shanghai", "cn-northwest-1": "Asia/Shanghai",
	"us-gov-east-1": "America/New_York", "us-gov-west-1": "America/Los_Angeles",
}

// ZoneExists says whether an Availability Zone name ("ap-northeast-2e")
// names a zone of its region; known is false for a region whose zones the
// table does not hold, and for a Local or Wavelength Zone.
func ZoneExists(zone string) (exists, known bool) {
	region := RegionOfZone(zone)
	letters, ok := Regions[region]
	if !ok || len(zone) != len(region)+1 {
		return false, false
	}
	return strings.ContainsRune(letters, rune(zone[len(zone)-1])), true
}

// ZoneNames lists the zones of a region the table holds.
func ZoneNames(region string) []string {
	var out []string
	for _, l := range Regions[region] {
		out = append(out, region+string(l))
	}
	return out
}

// PauseImage is the upstream pause image placeholder pods run by default.
const PauseImage = "registry.k8s.io/pause:3.10"

// EKSImageAccounts are the accounts of the ECR registries EKS publishes
// its own images from (its pause image, eks/pause, among them) in the
// regions whose nodes cannot count on reaching registry.k8s.io: the
// aws-cn partition's (EKS's list of Amazon container image registries).
var EKSImageAccounts = map[string]string{
	"cn-north-1":     "918309763551",
	"cn-northwest-1": "961992271922",
}

// PartitionOf returns the partition of a region, from its name.
func PartitionOf(region string) string {
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

// AMISupportEnds is, for an AMI family, the day EKS's support of its
// optimized AMIs ended: no new AMI, no fix, security ones included.
// Amazon Linux 2's ended on 2025-11-26.
var AMISupportEnds = map[string]string{"al2": "2025-11-26"}

// PricingRegion is the region whose Price List API endpoint Karpenter's
// pricing provider asks for a cluster's on-demand prices: the nearest of
// the API's endpoints by the region's prefix (pkg/providers/pricing,
// NewAPI, unchanged from 0.32 to 1.15). It is false in GovCloud, which
// has no Price List API; the controller keeps its shipped prices there.
func PricingRegion(region string) (string, bool) {
	switch {
	case strings.HasPrefix(region, "us-gov-"):
		return "", false
	case strings.HasPrefix(region, "ap-"):
		return "ap-south-1", true
	case strings.HasPrefix(region, "cn-"):
		return "cn-northwest-1", true
	case strings.HasPrefix(region, "eu-"):
		return "eu-central-1", true
	}
	return "us-east-1", true
}
