package generators

import (
	"github.com/karpgen/karpgen/internal/model"
)

// Argo CD delivery facts.
const (
	// PluginName is the Config Management Plugin's name as Applications
	// refer to it: <metadata.name>-<spec.version> of deploy/argocd/plugin.yaml.
	PluginName = "karpgen-v1"
	// PluginEnv is the plugin env variable naming the environment
	// (ARGOCD_ENV_KARPGEN_ENV inside the plugin).
	PluginEnv = "KARPGEN_ENV"
	chartRepo = "public.ecr.aws/karpenter"
	valuesRef = "values"
)

// Application is the Argo CD Application object of a resolved
// Application: the official karpenter-crd and karpenter charts at the
// profile's version, with the bundle's values from Git, and the NodePools
// and EC2NodeClasses through the karpgen plugin. Nil for nil.
func Application(a *model.Application) obj {
	if a == nil {
		return nil
	}
	dest := obj{"namespace": a.DestinationNamespace}
	if a.DestinationName != "" {
		dest["name"] = a.DestinationName
	} else {
		dest["server"] = a.DestinationServer
	}
	crds := obj{"repoURL": chartRepo, "chart": "karpenter-crd", "targetRevision": a.ChartVersion}
	if a.CRDWebhook {
		crds["helm"] = obj{"valuesObject": obj{"webhook": obj{"enabled": true, "serviceName": "karpenter", "serviceNamespace": a.DestinationNamespace}}}
	}
	return obj{
		"apiVersion": "argoproj.io/v1alpha1",
		"kind":       "Application",
		"metadata":   obj{"name": a.Name, "namespace": a.Namespace},
		"spec": obj{
			"project":     a.Project,
			"destination": dest,
			"sources": []any{
				crds,
				obj{
					"repoURL": chartRepo, "chart": "karpenter", "targetRevision": a.ChartVersion,
					"helm": obj{
						"releaseName": "karpenter",
						"skipCrds":    true,
						"valueFiles":  strs("$" + valuesRef + "/" + a.ValuesFile),
					},
				},
				obj{"repoURL": a.RepoURL, "targetRevision": a.TargetRevision, "ref": valuesRef},
				obj{
					"repoURL": a.RepoURL, "targetRevision": a.TargetRevision, "path": a.Path,
					"plugin": obj{"name": PluginName, "env": []any{obj{"name": PluginEnv, "value": a.Env}}},
				},
			},
			"syncPolicy": obj{"syncOptions": strs("CreateNamespace=true", "ServerSideApply=true")},
		},
	}
}

// ApplicationSet covers every environment that has an Application, with
// a list generator holding each one's Application.
func ApplicationSet(apps []*model.Application) obj {
	if len(apps) == 0 {
		return nil
	}
	var elements []any
	for _, a := range apps {
		elements = append(elements, obj{"name": a.Name, "spec": Application(a)["spec"]})
	}
	return obj{
		"apiVersion": "argoproj.io/v1alpha1",
		"kind":       "ApplicationSet",
		"metadata":   obj{"name": "karpenter", "namespace": apps[0].Namespace},
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
