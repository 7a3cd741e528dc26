package lint

import (
	"slices"

	"github.com/karpgen/karpgen/internal/diag"
	"github.com/karpgen/karpgen/internal/profile"
)

// gpuRules are the rules of the group GPU.
var gpuRules = []*Rule{
	{
		ID: "gpu/taint", Severity: diag.Warning, Group: "GPU",
		Summary: "A pool of GPU instances is tainted nvidia.com/gpu, so that only pods that ask for a GPU land on its costly nodes.",
		Hint:    `add taints: [{key: "nvidia.com/gpu", effect: "NoSchedule"}] (the NVIDIA device plugin's pods tolerate it)`,
		check: func(c *Context) {
			for p, np := range c.pools() {
				if gpu, _ := gpuKinds(np); !gpu {
					continue
				}
				if !slices.ContainsFunc(np.Taints, func(t profile.Taint) bool { return t.Key == gpuResource && t.Effect != "PreferNoSchedule" }) {
					c.Report(at("nodePools", field(p), "taints"), "", "GPU pool %q has no nvidia.com/gpu taint: any pod may land on its GPU nodes", p)
				}
			}
		},
	},
	{
		ID: "gpu/mixed", Severity: diag.Warning, Group: "GPU",
		Summary: "GPU instance families are not mixed into a general pool: Karpenter would launch GPU nodes for pods that need none.",
		Hint:    "keep GPU families (g, p) in a pool of their own, tainted nvidia.com/gpu",
		check: func(c *Context) {
			for p, np := range c.pools() {
				if gpu, general := gpuKinds(np); gpu && general {
					path := at("nodePools", field(p))
					switch {
					case len(np.InstanceFamilies) > 0:
						path = at(path, "instanceFamilies")
					case len(np.InstanceCategories) > 0:
						path = at(path, "instanceCategories")
					case len(np.InstanceTypes) > 0:
						path = at(path, "instanceTypes")
					}
					c.Report(path, "", "pool %q mixes GPU and general instance families", p)
				}
			}
		},
	},
	{
		ID: "gpu/limit", Severity: diag.Warning, Group: "GPU",
		Summary: "A GPU pool limits nvidia.com/gpu: GPU capacity is where a runaway scale-up costs most.",
		Hint:    `add limits: "nvidia.com/gpu": N`,
		check: func(c *Context) {
			for p, np := range c.pools() {
				if gpu, _ := gpuKinds(np); !gpu || np.Replicas != nil {
					continue
				}
				if _, ok := np.Limits[gpuResource]; !ok {
					c.Report(at("nodePools", field(p), "limits"), "", "GPU pool %q has no nvidia.com/gpu limit", p)
				}
			}
		},
	},
}
