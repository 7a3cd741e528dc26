package generators

import (
	"path"
	"strings"

	"github.com/karpgen/karpgen/generators/facts"
	"github.com/karpgen/karpgen/internal/profile"
)

// Argo CD delivery facts.
const (
	// PluginName is the Config Management Plugin's name as Applications
	// refer to it: <metadata.name>-<spec.version> of deploy/argocd/plugin.yaml.
	PluginName = "karpgen-v1"
	// PluginEnv is the plugin env variable naming the environment
	// (ARGOCD_ENV_KARPGEN_ENV inside the plugin).
	PluginEnv    = "KARPGEN_ENV"
	chartRepo    = "public.ecr.aws/karpenter"
	valuesRef    = "values"
	inClusterURL = "https://kubernetes.default.svc"
)

// Application is the Argo CD Application of an environment: the official
// karpenter-crd and karpenter charts at the profile's version, with the
// bundle's values from Git, and the NodePools and EC2NodeClasses through
// the karpgen plugin. Nil when the profile has no argocd section.
func Application(p *profile.Profile, m *facts.Minor, n Names) obj {
	a := p.ArgoCD
	if a == nil {
		return nil
	}
	version := strings.TrimPrefix(p.Karpenter.Version, "v")
	dest := obj{"namespace": n.Namespace}
	switch {
	case a.Destination.Name != "":
		dest["name"] = a.Destination.Name
	case a.Destination.Server != "":
		dest["server"] = a.Destination.Server
	default:
		dest["server"] = inClusterURL
	}
	crds := obj{"repoURL": chartRepo, "chart": "karpenter-crd", "targetRevision": version}
	if m.Minor == "1.0" {
		// The v1.0 CRDs carry a conversion webhook that must point at the
		// namespace the controller runs in.
		crds["helm"] = obj{"valuesObject": obj{"webhook": obj{"enabled": true, "serviceName": "karpenter", "serviceNamespace": n.Namespace}}}
	}
	return obj{
		"apiVersion": "argoproj.io/v1alpha1",
		"kind":       "Application",
		"metadata":   obj{"name": "karpenter-" + p.Env, "namespace": a.Namespace},
		"spec": obj{
			"project":     a.Project,
			"destination": dest,
			"sources": []any{
				crds,
				obj{
					"repoURL": chartRepo, "chart": "karpenter", "targetRevision": version,
					"helm": obj{
						"releaseName": "karpenter",
						"skipCrds":    true,
						"valueFiles":  strs("$" + valuesRef + "/" + path.Join(a.Path, "out", p.Env, "helm", "karpenter-values.yaml")),
					},
				},
				obj{"repoURL": a.RepoURL, "targetRevision": a.TargetRevision, "ref": valuesRef},
				obj{
					"repoURL": a.RepoURL, "targetRevision": a.TargetRevision, "path": a.Path,
					"plugin": obj{"name": PluginName, "env": []any{obj{"name": PluginEnv, "value": p.Env}}},
				},
			},
			"syncPolicy": obj{"syncOptions": strs("CreateNamespace=true", "ServerSideApply=true")},
		},
	}
}

// ApplicationSet covers every environment that has an Application, with
// a list generator holding each one's Application.
func ApplicationSet(apps []obj) obj {
	if len(apps) == 0 {
		return nil
	}
	var elements []any
	for _, a := range apps {
		meta := a["metadata"].(obj)
		elements = append(elements, obj{"name": meta["name"], "spec": a["spec"]})
	}
	return obj{
		"apiVersion": "argoproj.io/v1alpha1",
		"kind":       "ApplicationSet",
		"metadata":   obj{"name": "karpenter", "namespace": apps[0]["metadata"].(obj)["namespace"]},
		"spec": obj{
			"goTemplate":        true,
			"goTemplateOptions": strs("missingkey=error"),
			"generators":        []any{obj{"list": obj{"elements": elements}}},
			"template": obj{
				"metadata": obj{"name": "{{ .name }}"},
				"spec":     obj{"project": "default", "destination": obj{}, "sources": []any{}},
			},
			"templatePatch": "spec:\n  {{- toYaml .spec | nindent 2 }}\n",
		},
	}
}
