package facts

import (
	"time"

	"github.com/karpgen/karpgen/internal/util/lazyre"
)

// KubernetesReleased is the day upstream released each Kubernetes minor
// (kubernetes.io/releases, the release announcements; the day the module
// proxy dates k8s.io/api v0.N.0, which is tagged with the release):
// EKS builds its node images for a minor only from then on.
var KubernetesReleased = map[string]string{
	"1.23": "2021-12-07",
	"1.24": "2022-05-03",
	"1.25": "2022-08-23",
	"1.26": "2022-12-08",
	"1.27": "2023-04-11",
	"1.28": "2023-08-15",
	"1.29": "2023-12-13",
	"1.30": "2024-04-17",
	"1.31": "2024-08-13",
	"1.32": "2024-12-11",
	"1.33": "2025-04-23",
	"1.34": "2025-08-27",
	"1.35": "2025-12-17",
	"1.36": "2026-04-22",
	"1.37": "2026-08-26",
}

// datedAlias is an AMI alias pinned to a dated release: EKS's Amazon
// Linux and Windows images are released as vYYYYMMDD (Bottlerocket's by
// their own version, which says nothing of the date).
var datedAlias = lazyre.New(`^(al2|al2023|windows2019|windows2022|windows2025)@v(\d{8})$`)

// AMIReleaseLacks says whether a pinned AMI alias can have no image for
// Kubernetes minor k: its release is dated before upstream released k.
// It gives the release's day and k's; false when either is unknown.
func AMIReleaseLacks(alias, k string) (release, released string, lacks bool) {
	m := datedAlias().FindStringSubmatch(alias)
	day, known := KubernetesReleased[k]
	if m == nil || !known {
		return "", "", false
	}
	t, err := time.Parse("20060102", m[2])
	if err != nil {
		return "", "", false
	}
	release = t.Format(time.DateOnly)
	return release, day, release < day
}

// AMIRecommendedName is the SSM parameter that names the newest image of
// an AMI family for Kubernetes minor k on x86_64, whose name ends in its
// release ("amazon-eks-node-al2023-x86_64-standard-1.34-v20251002"), or
// "" for a family whose parameters name no release.
func AMIRecommendedName(family, k string) string {
	switch family {
	case "al2023":
		return "/aws/service/eks/optimized-ami/" + k + "/amazon-linux-2023/x86_64/standard/recommended/image_name"
	case "al2":
		return "/aws/service/eks/optimized-ami/" + k + "/amazon-linux-2/recommended/image_name"
	}
	return ""
}
