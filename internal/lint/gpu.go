package lint

import (
	"github.com/karpgen/karpgen/internal/profile"
	"github.com/karpgen/karpgen/internal/util/lazyre"
)

// gpuFamilyRE matches the NVIDIA GPU instance families (g4dn, g5, g5g,
// g6e, gr6, p4d, p5, ...).
var gpuFamilyRE = lazyre.New(`^(g|gr|p)[0-9]`)

const gpuResource = "nvidia.com/gpu"

// gpuKinds says whether a pool allows GPU instances and general ones.
func gpuKinds(np profile.NodePool) (gpu, general bool) {
	for _, f := range np.InstanceFamilies {
		if gpuFamilyRE().MatchString(f) {
			gpu = true
		} else {
			general = true
		}
	}
	for _, c := range np.InstanceCategories {
		if c == "g" || c == "p" {
			gpu = true
		} else {
			general = true
		}
	}
	for _, t := range np.InstanceTypes {
		if gpuFamilyRE().MatchString(t) {
			gpu = true
		} else {
			general = true
		}
	}
	for _, r := range np.Requirements {
		if r.Key == "karpenter.k8s.aws/instance-gpu-count" && (r.Operator == "Gt" || r.Operator == "Exists") {
			gpu = true
		}
	}
	if _, ok := np.Limits[gpuResource]; ok {
		gpu = true
	}
	return gpu, general
}
