package generators

import (
	"github.com/karpgen/karpgen/internal/model"
	"github.com/karpgen/karpgen/internal/profile"
)

// addonKeys says where each add-on's configuration takes its scheduling
// settings: "" for the top level, else the key of the component that
// runs as a Deployment (its DaemonSets belong on every node).
var (
	eksAddonKeys = map[string][]string{
		"coredns":            {""},
		"metrics-server":     {""},
		"aws-ebs-csi-driver": {"controller"},
		"aws-efs-csi-driver": {"controller"},
	}
	helmAddonKeys = map[string][]string{
		"metrics-server":               {""},
		"aws-load-balancer-controller": {""},
		"external-dns":                 {""},
		"cert-manager":                 {"", "webhook", "cainjector"},
	}
)

// AddonFiles are the configuration values that pin critical add-ons to
// their node group and keep them off nodes Karpenter manages, by file
// name under addons/: eks-<addon>.json for `aws eks update-addon
// --configuration-values`, helm-<chart>-values.yaml for Helm releases.
func AddonFiles(e *model.Env) map[string]any {
	p := e.Profile
	name := e.Placement.AddonGroup
	g, ok := p.NodeGroups[name]
	if !ok {
		return nil
	}
	files := map[string]any{}
	for _, a := range p.Addons.EKS {
		files["addons/eks-"+a+".json"] = addonValues(g, eksAddonKeys[a])
	}
	for _, a := range p.Addons.Helm {
		files["addons/helm-"+a+"-values.yaml"] = addonValues(g, helmAddonKeys[a])
	}
	return files
}

func addonValues(g profile.NodeGroup, keys []string) obj {
	placement := func() obj {
		o := obj{
			"nodeSelector": g.Labels,
			"affinity": obj{"nodeAffinity": obj{"requiredDuringSchedulingIgnoredDuringExecution": obj{
				"nodeSelectorTerms": []any{obj{"matchExpressions": []any{obj{"key": keyNodePool, "operator": "DoesNotExist"}}}},
			}}},
		}
		if tolerations := tolerationList(model.Tolerations(g.Taints)); len(tolerations) > 0 {
			o["tolerations"] = tolerations
		}
		return o
	}
	out := obj{}
	for _, k := range keys {
		if k == "" {
			for key, v := range placement() {
				out[key] = v
			}
			continue
		}
		out[k] = placement()
	}
	return out
}
