package doctor

import (
	"fmt"
	"slices"
	"strings"

	"github.com/karpgen/karpgen/generators"
	"github.com/karpgen/karpgen/internal/diag"
	"github.com/karpgen/karpgen/internal/facts"
	"github.com/karpgen/karpgen/internal/iam/iampolicy"
	"github.com/karpgen/karpgen/internal/model"
	"github.com/karpgen/karpgen/internal/util/escape"
)

// clusterChecks compare what runs in the cluster (CRDs, webhooks, the controller, its values, the classes' status) with the bundle.
var clusterChecks = []*Check{
	{
		ID: "doctor/kube-context", Severity: diag.Error,
		Summary: "kubectl pointed at the environment's cluster when it captured: its server is the EKS cluster's endpoint. When it is not, nothing kubectl or helm captured is checked.",
		run: func(c *checkRun) {
			var cl eksCluster
			var kc kubeConfig
			if !c.load("eks-cluster.json", &cl, "cluster "+c.e.Names.Cluster, "the cluster", "") ||
				!c.load("k8s-context.json", &kc, "kubeconfig", "the current context", "") || c.dry {
				return
			}
			if server, ok := otherCluster(cl, kc); ok {
				c.report("kubeconfig context "+kc.CurrentContext, "the endpoint of "+c.e.Names.Cluster+" ("+cl.Cluster.Endpoint+")", server,
					escape.ShellJoin("aws", "eks", "update-kubeconfig", "--region", c.e.Names.Region, "--name", c.e.Names.Cluster)+", then capture again")
			}
		},
	},
	{
		ID: "doctor/crds", Severity: diag.Error,
		Summary: "The CRDs the profile's minor installs and the profile uses (NodeOverlay and CapacityBuffer when it has them) are present, serve their version and, from Karpenter 1.1, store only it; other CRDs of the cluster are ignored.",
		run: func(c *checkRun) {
			var l k8sList
			if !c.load("k8s-crds.json", &l, "CRDs", "the Karpenter CRDs", c.installCRDs()) {
				return
			}
			have := map[string]k8sObject{}
			for _, crd := range l.Items {
				have[crd.Metadata.Name] = crd
			}
			for _, want := range c.wantCRDs() {
				crd, ok := have[want.Name]
				if !ok {
					c.report("CRD "+want.Name, "installed ("+want.Kind+" "+want.Version+")", "absent", c.installCRDs())
					continue
				}
				var served []string
				for _, v := range crd.Spec.Versions {
					if v.Served {
						served = append(served, v.Name)
					}
				}
				if !slices.Contains(served, want.Version) {
					c.report("CRD "+want.Name, want.Version+" served", "served: "+orNone(strings.Join(served, ", ")), c.installCRDs())
				}
				if c.e.Version.Minor >= 1 && !slices.Equal(crd.Status.StoredVersions, []string{want.Version}) {
					c.report("CRD "+want.Name, "status.storedVersions ["+want.Version+"]", fmt.Sprint(crd.Status.StoredVersions),
						escape.ShellJoin("kubectl", "patch", "crd", crd.Metadata.Name, "--subresource=status", "--type=merge", "-p", `{"status":{"storedVersions":["`+want.Version+`"]}}`)+" (after every object was re-applied as "+want.Version+")")
				}
			}
		},
	},
	{
		ID: "doctor/webhooks", Severity: diag.Error,
		Summary: "No webhook configuration of Karpenter's removed v1beta1 APIs is left (from 1.1 nothing serves them).",
		run: func(c *checkRun) {
			var l k8sList
			if !c.load("k8s-webhooks.json", &l, "webhook configurations", "the webhook configurations", "") {
				return
			}
			if c.e.Facts != nil && c.e.Facts.ConversionWebhook {
				return // 1.0 still serves them
			}
			for _, w := range l.Items {
				if strings.Contains(w.Metadata.Name, "karpenter") {
					c.report(strings.ToLower(w.Kind)+" "+w.Metadata.Name, "absent", "present", escape.ShellJoin("kubectl", "delete", strings.ToLower(w.Kind), w.Metadata.Name))
				}
			}
		},
	},
	{
		ID: "doctor/controller", Severity: diag.Error,
		Summary: "The running controller is the profile's version, with its CLUSTER_NAME and INTERRUPTION_QUEUE.",
		run: func(c *checkRun) {
			n := c.e.Names
			var d k8sDeployment
			if !c.load("k8s-karpenter-deployment.json", &d, "deployment "+n.Namespace+"/karpenter", "the controller", c.deployController()) {
				return
			}
			for _, ct := range d.Spec.Template.Spec.Containers {
				if ct.Name != "controller" {
					continue
				}
				tag := ct.Image[strings.LastIndex(ct.Image, ":")+1:]
				if at := strings.Index(ct.Image, "@"); at >= 0 {
					img := ct.Image[:at]
					tag = img[strings.LastIndex(img, ":")+1:]
				}
				if tag != c.e.Version.String() {
					c.report("deployment "+n.Namespace+"/karpenter", "image "+c.e.Version.String(), ct.Image,
						c.deployController())
				}
				env := map[string]string{}
				for _, v := range ct.Env {
					env[v.Name] = v.Value
				}
				for k, want := range map[string]string{"CLUSTER_NAME": n.Cluster, "INTERRUPTION_QUEUE": n.Queue} {
					if env[k] != want {
						c.report("deployment "+n.Namespace+"/karpenter", k+"="+want, k+"="+env[k], c.deployController())
					}
				}
			}
		},
	},
	{
		ID: "doctor/helm-values", Severity: diag.Error,
		Summary: "The Helm values in use mean what the rendered values mean: each key compared after the chart's own defaults of the profile's minor, and scalars as Helm's templates print them (\"1\" and 1 alike); the keys that differ are named. A controller installed without Helm is checked from its Deployment (replicas, LOG_LEVEL, FEATURE_GATES).",
		run: func(c *checkRun) {
			if c.e.Application != nil {
				return // no Helm release: doctor/argocd-application checks what Argo CD deploys
			}
			// A release that is not found: the controller was installed
			// without Helm (helm template | kubectl apply), and its
			// Deployment says what the values were.
			if !c.dry {
				var probe any
				if _, failed, err := c.s.read("helm-values.json", &probe); err == nil && failed != nil && strings.Contains(failed.Message, "release: not found") {
					checkHelmless(c)
					return
				}
			}
			var have map[string]any
			if !c.load("helm-values.json", &have, "release "+c.e.Names.Namespace+"/karpenter", "the rendered values", "") {
				return
			}
			for _, d := range valuesDiff(have, generators.HelmValues(c.e), facts.ChartValues(c.e.Facts.Minor)) {
				c.report("release "+c.e.Names.Namespace+"/karpenter", d.Key+" = "+d.Want, d.Key+" = "+d.Have, c.deployController())
			}
		},
	},
	{
		ID: "doctor/argocd-application", Severity: diag.Error,
		Summary: "An environment Argo CD delivers: its Application deploys what the bundle's argocd-application.yaml says (the charts at the profile's version, the values and the objects of out/<env>), and is synced and healthy.",
		run: func(c *checkRun) {
			app := c.e.Application
			if app == nil {
				return
			}
			var have argoApplication
			resource := "application " + app.Namespace + "/" + app.Name
			if !c.load("argocd-application.json", &have, resource, "the Application of "+c.file(model.FileApplication), c.applyApplication()) {
				return
			}
			want := iampolicy.Normalize(generators.Application(app)).(map[string]any)
			wantSpec, _ := want["spec"].(map[string]any)
			haveSources, _ := iampolicy.Normalize(have.Spec.Sources).([]any)
			wantSources, _ := wantSpec["sources"].([]any)
			for i := range max(len(haveSources), len(wantSources)) {
				var h, w any
				if i < len(haveSources) {
					h = haveSources[i]
				}
				if i < len(wantSources) {
					w = wantSources[i]
				}
				for _, d := range diffKeys(fmt.Sprintf("spec.sources[%d]", i), h, w) {
					c.report(resource, d.Key+" = "+valueText(d.Want), d.Key+" = "+valueText(d.Have), c.applyApplication())
				}
			}
			if s := have.Status.Sync.Status; s != "Synced" {
				c.report(resource, "sync status Synced", "sync status "+orNone(s), escape.ShellJoin("argocd", "app", "sync", app.Namespace+"/"+app.Name))
			}
			if h := have.Status.Health; h.Status != "Healthy" {
				found := "health " + orNone(h.Status)
				if h.Message != "" {
					found += " (" + h.Message + ")"
				}
				c.report(resource, "health Healthy", found, "read the unhealthy resources: "+escape.ShellJoin("argocd", "app", "get", app.Namespace+"/"+app.Name))
			}
		},
	},
	{
		ID: "doctor/node-class-status", Severity: diag.Error,
		Summary: "No EC2NodeClass or NodePool status condition reports a failure (its reason and message are shown).",
		run: func(c *checkRun) {
			for _, k := range []struct{ file, kind string }{{"k8s-ec2nodeclasses.json", "EC2NodeClass"}, {"k8s-nodepools.json", "NodePool"}} {
				var l k8sList
				if !c.load(k.file, &l, k.kind+"s", "the objects", "") {
					continue
				}
				for _, o := range l.Items {
					for _, cond := range o.Status.Conditions {
						if cond.Status == "False" {
							// Named as a user names it: kubectl get nodepool default.
							c.report(k.kind+" "+o.Metadata.Name, cond.Type+"=True",
								fmt.Sprintf("%s=False (%s: %s)", cond.Type, cond.Reason, cond.Message), "fix what the message names; karpenter's logs have the details")
						}
					}
				}
			}
		},
	}}

// otherCluster reports the server kubectl talked to when it is not the
// EKS cluster's endpoint (hosts compared without case, a trailing slash
// or the default port); ok is false when it is, or when either side is
// not known.
func otherCluster(cl eksCluster, kc kubeConfig) (string, bool) {
	norm := func(u string) string {
		u = strings.ToLower(strings.TrimSuffix(strings.TrimSpace(u), "/"))
		return strings.TrimSuffix(u, ":443")
	}
	if cl.Cluster.Endpoint == "" || len(kc.Clusters) == 0 {
		return "", false
	}
	server := kc.Clusters[0].Cluster.Server
	if norm(server) == norm(cl.Cluster.Endpoint) {
		return "", false
	}
	if server == "" {
		server = "no server"
	}
	return server, true
}
