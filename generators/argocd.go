package generators

import (
	"maps"
	"slices"
	"strings"

	"github.com/karpgen/karpgen/internal/facts"
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
	crds := chartSource(a, "karpenter-crd")
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
				withHelm(chartSource(a, "karpenter"), obj{
					"releaseName": "karpenter",
					"skipCrds":    true,
					"valueFiles":  strs("$" + valuesRef + "/" + a.ValuesFile),
				}),
				obj{"repoURL": a.RepoURL, "targetRevision": a.TargetRevision, "ref": valuesRef},
				objects(a),
			},
			"syncPolicy": obj{"syncOptions": strs("CreateNamespace=true", "ServerSideApply=true")},
		},
	}
}

// chartSource is an Application source of one of Karpenter's charts at
// the profile's version: the registry as a Helm repository, or (Argo CD
// 3.1+) the chart's own oci:// repository, whose root is the chart.
func chartSource(a *model.Application, chart string) obj {
	if a.OCICharts {
		return obj{"repoURL": ChartRef(chart), "path": ".", "targetRevision": a.ChartVersion}
	}
	return obj{"repoURL": chartRepo, "chart": chart, "targetRevision": a.ChartVersion}
}

func withHelm(source, helm obj) obj {
	source["helm"] = helm
	return source
}

// chartRepos are the repositories of an AppProject's sourceRepos that
// hold the charts.
func chartRepos(a *model.Application) []string {
	if a.OCICharts {
		return []string{ChartRef("karpenter"), ChartRef("karpenter-crd")}
	}
	return []string{chartRepo}
}

// ChartRef is the OCI reference helm takes for one of Karpenter's charts
// (karpenter, karpenter-crd): the registry the Applications name.
func ChartRef(chart string) string { return "oci://" + chartRepo + "/" + chart }

// ArgoCDNeeds says which Argo CD an Application needs (NeedsArgoCD).
func ArgoCDNeeds(a *model.Application) string {
	minor, why := a.NeedsArgoCD()
	return "Needs Argo CD " + minor + " or later: " + why + "."
}

// applicationSetNeeds says which Argo CD the ApplicationSet of these
// Applications needs: the newest any of them needs.
func applicationSetNeeds(apps []*model.Application) string {
	minor, why := "", ""
	for _, a := range apps {
		if m, w := a.NeedsArgoCD(); minor == "" || facts.MinorLess(minor, m) {
			minor, why = m, w
		}
	}
	return "Needs Argo CD " + minor + " or later: " + why + ", whose Applications have several sources."
}

// noted puts a comment line below the generated-code line, which stays
// first.
func noted(text []byte, note string) []byte {
	head, rest, _ := strings.Cut(string(text), "\n")
	return []byte(head + "\n# " + note + "\n" + rest)
}

// objects is the Application's source of the NodePools and EC2NodeClasses:
// the karpgen plugin over the repository, or the committed out/<env> as a
// Kustomize source (its kustomization.yaml lists the objects).
func objects(a *model.Application) obj {
	if a.Rendered {
		return obj{"repoURL": a.RepoURL, "targetRevision": a.TargetRevision, "path": a.RenderedPath}
	}
	return obj{
		"repoURL": a.RepoURL, "targetRevision": a.TargetRevision, "path": a.Path,
		"plugin": obj{"name": PluginName, "env": []any{obj{"name": PluginEnv, "value": a.Env}}},
	}
}

// ApplicationSet covers the environments whose fleet is an
// ApplicationSet, with a list generator holding each one's Application.
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

// AppProject is the Argo CD project of an environment whose profile names
// none: the Application may deploy only the kinds its sources hold (the
// chart's with karpgen's values, the CRDs, the namespace Argo CD creates,
// the objects of the bundle), only into the environment's cluster and the
// namespaces those kinds live in, and only from the chart repository and
// the profiles repository. Nil when the environment has no Application of
// its own project.
func AppProject(e *model.Env) obj {
	a := e.Application
	if a == nil || !a.OwnProject {
		return nil
	}
	k := kindsOf(e)
	var dests []any
	for _, ns := range k.namespaces {
		d := obj{"namespace": ns}
		if a.DestinationName != "" {
			d["name"] = a.DestinationName
		} else {
			d["server"] = a.DestinationServer
		}
		dests = append(dests, d)
	}
	return obj{
		"apiVersion": "argoproj.io/v1alpha1",
		"kind":       "AppProject",
		"metadata":   obj{"name": a.Project, "namespace": a.Namespace},
		"spec": obj{
			"description":                "Karpenter of " + e.Names.Cluster + ", written by karpgen: only what its bundle holds",
			"sourceRepos":                strs(append(chartRepos(a), a.RepoURL)...),
			"destinations":               dests,
			"clusterResourceWhitelist":   groupKinds(k.cluster),
			"namespaceResourceWhitelist": groupKinds(k.namespaced),
		},
	}
}

// appKinds are the kinds an Application deploys, as "group/Kind", and
// the namespaces its namespaced objects live in.
type appKinds struct {
	cluster, namespaced, namespaces []string
}

// kindsOf collects the kinds of everything the environment's Application
// deploys, from the objects the generators make (so a new generator is
// allowed by construction) and the chart's row of the facts.
func kindsOf(e *model.Env) appKinds {
	m, n := e.Facts, e.Names
	cluster := map[string]bool{"apiextensions.k8s.io/CustomResourceDefinition": true, "/Namespace": true}
	namespaced := map[string]bool{}
	namespaces := map[string]bool{n.Namespace: true}
	for _, gk := range m.Chart.ClusterKinds {
		cluster[gk] = true
	}
	for _, gk := range m.Chart.NamespacedKinds {
		namespaced[gk] = true
	}
	for _, ns := range m.Chart.Namespaces {
		namespaces[ns] = true
	}
	for _, docs := range [][]any{NodeClasses(e), NodePools(e.Profile), Headroom(e), NodeOverlays(e.Profile), CapacityBuffers(e)} {
		for _, d := range docs {
			o := d.(obj)
			group, _, grouped := strings.Cut(o["apiVersion"].(string), "/")
			if !grouped {
				group = "" // the core API: "v1"
			}
			gk := group + "/" + o["kind"].(string)
			meta, _ := o["metadata"].(obj)
			if ns, ok := meta["namespace"].(string); ok && ns != "" {
				namespaced[gk], namespaces[ns] = true, true
			} else {
				cluster[gk] = true
			}
		}
	}
	return appKinds{cluster: slices.Sorted(maps.Keys(cluster)), namespaced: slices.Sorted(maps.Keys(namespaced)), namespaces: slices.Sorted(maps.Keys(namespaces))}
}

// groupKinds turns "group/Kind" strings into Argo CD's GroupKind list.
func groupKinds(gks []string) []any {
	out := make([]any, 0, len(gks))
	for _, gk := range gks {
		group, kind, _ := strings.Cut(gk, "/")
		out = append(out, obj{"group": group, "kind": kind})
	}
	return out
}
