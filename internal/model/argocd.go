package model

import (
	"path"
	"strings"

	"github.com/karpgen/karpgen/internal/facts"
	"github.com/karpgen/karpgen/internal/profile"
)

// InClusterURL is Argo CD's name for the cluster it runs in.
const InClusterURL = "https://kubernetes.default.svc"

// Application is the resolved Argo CD Application of an environment: the
// official charts at the profile's version with the bundle's values, and
// the NodePools and EC2NodeClasses through the karpgen plugin.
type Application struct {
	Name, Namespace, Project string
	// OwnProject: the profile names no project, so karpgen writes the
	// AppProject Project (named like the Application) itself.
	OwnProject bool
	// DestinationServer or DestinationName (one is set) and the namespace
	// Karpenter runs in.
	DestinationServer, DestinationName, DestinationNamespace string
	// ChartVersion is the karpenter and karpenter-crd chart version.
	ChartVersion string
	// CRDWebhook: the CRD chart's conversion webhook must point at the
	// controller's namespace (Karpenter 1.0).
	CRDWebhook bool
	// RepoURL, TargetRevision and Path locate this repository; ValuesFile
	// is the Helm values file within it.
	RepoURL, TargetRevision, Path, ValuesFile string
	// Env is the environment the plugin renders.
	Env string
	// Rendered: Argo CD applies the committed out/<env> (RenderedPath) as
	// a Kustomize source instead of running the plugin.
	Rendered     bool
	RenderedPath string
	// InSet: the environment is an element of the fleet's ApplicationSet,
	// not an Application file of its own.
	InSet bool
	// OCICharts: the charts are native oci:// sources (Argo CD 3.1+), not
	// a Helm repository with OCI enabled.
	OCICharts bool
}

// NeedsArgoCD is the oldest Argo CD minor that runs the Application, and
// what needs it: 2.6 for an Application of several sources with a $values
// reference, 2.8 for the CRD chart's helm.valuesObject (Karpenter 1.0's
// conversion webhook), 2.10 for the ApplicationSet's templatePatch, 3.1
// for native oci:// chart sources.
func (a *Application) NeedsArgoCD() (minor, why string) {
	switch {
	case a.OCICharts:
		return "3.1", "an Application of native oci:// chart sources"
	case a.InSet:
		return "2.10", "an ApplicationSet with templatePatch"
	case a.CRDWebhook:
		return "2.8", "an Application of several sources, with a $values reference and helm.valuesObject"
	}
	return "2.6", "an Application of several sources, with a $values reference"
}

// Argo CD chart sources of a profile's argocd section.
const ChartsOCI = "oci"

// Argo CD delivery and fleet modes of a profile's argocd section.
const (
	DeliveryRendered    = "rendered"
	FleetApplicationSet = "applicationSet"
)

func applicationOf(p *profile.Profile, m *facts.Minor, n Names) *Application {
	a := p.ArgoCD
	if a == nil {
		return nil
	}
	app := &Application{
		Name: "karpenter-" + p.Env, Namespace: a.Namespace, Project: a.Project,
		DestinationNamespace: n.Namespace,
		ChartVersion:         strings.TrimPrefix(p.Karpenter.Version, "v"),
		CRDWebhook:           m.ConversionWebhook,
		RepoURL:              a.RepoURL, TargetRevision: a.TargetRevision, Path: a.Path,
		ValuesFile: path.Join(a.Path, "out", p.Env, "helm", "karpenter-values.yaml"),
		Env:        p.Env,
		Rendered:   a.Delivery == DeliveryRendered, RenderedPath: path.Join(a.Path, "out", p.Env),
		InSet: a.Fleet == FleetApplicationSet, OCICharts: a.Charts == ChartsOCI,
	}
	if app.Project == "" {
		app.Project, app.OwnProject = app.Name, true
	}
	switch {
	case a.Destination.Name != "":
		app.DestinationName = a.Destination.Name
	case a.Destination.Server != "":
		app.DestinationServer = a.Destination.Server
	default:
		app.DestinationServer = InClusterURL
	}
	return app
}
