package doctor_test

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/chartutil"
	"helm.sh/helm/v3/pkg/engine"
	"sigs.k8s.io/yaml"

	"github.com/karpgen/karpgen/generators"
	"github.com/karpgen/karpgen/internal/model"
)

// TestHealthyAsTheChartRendersIt: the cluster holds what the official
// chart of the profile's release renders from the bundle's values (its
// Deployment, with every default the chart fills in, and its CRDs), once
// installed with Helm (helm get values gives the bundle's values) and
// once with helm template | kubectl apply (no release: the Deployment
// says what the values were). Every check passes on both: doctor's
// comparisons hold for the chart's own rendering, not only for the
// hand-made Deployment of the other tests. Releases of 1.0, 1.9, 1.14 and
// 1.15.
func TestHealthyAsTheChartRendersIt(t *testing.T) {
	for _, version := range []string{"1.0.14", "1.9.3", "1.14.3", "1.15.2"} {
		t.Run(version, func(t *testing.T) {
			p := *prodEnv(t).Profile
			p.Karpenter.Version = version
			e := model.Resolve(&p)
			b, err := generators.Render(e)
			if err != nil {
				t.Fatal(err)
			}
			ch, err := loader.Load(filepath.Join("..", "..", "reference", "karpenter", "v"+version, "chart"))
			if err != nil {
				t.Fatal(err)
			}
			// The chart as published: upstream's release packages the tag's
			// chart with the release's version, appVersion and image (the
			// tree at the tag still names the release before; the image's
			// digest is the registry's, which the reference does not hold).
			ch.Metadata.Version, ch.Metadata.AppVersion = version, version
			image := ch.Values["controller"].(map[string]any)["image"].(map[string]any)
			image["tag"], image["digest"] = version, ""
			vals, err := chartutil.ReadValues(b.Files["helm/karpenter-values.yaml"])
			if err != nil {
				t.Fatal(err)
			}
			rv, err := chartutil.ToRenderValues(ch, vals, chartutil.ReleaseOptions{Name: "karpenter", Namespace: e.Names.Namespace, IsInstall: true, Revision: 1}, chartutil.DefaultCapabilities)
			if err != nil {
				t.Fatal(err)
			}
			out, err := engine.Render(ch, rv)
			if err != nil {
				t.Fatal(err)
			}
			var deployment map[string]any
			for name, text := range out {
				if !strings.HasSuffix(name, "templates/deployment.yaml") {
					continue
				}
				if err := yaml.Unmarshal([]byte(text), &deployment); err != nil {
					t.Fatal(err)
				}
			}
			if deployment == nil {
				t.Fatal("the chart renders no Deployment")
			}
			var crds []any
			for _, c := range ch.CRDObjects() {
				for doc := range bytes.SplitSeq(c.File.Data, []byte("\n---")) {
					var crd map[string]any
					if err := yaml.Unmarshal(doc, &crd); err != nil || crd == nil {
						continue
					}
					crd["status"] = map[string]any{"storedVersions": []any{"v1"}}
					crds = append(crds, crd)
				}
			}
			f := healthy(t, e)
			f["k8s-karpenter-deployment.json"] = deployment
			f["k8s-crds.json"] = map[string]any{"apiVersion": "v1", "kind": "List", "items": crds}
			for _, install := range []string{"helm", "helm template"} {
				if install == "helm template" {
					f["helm-values.json"] = captureError("CommandFailed", "Error: release: not found")
				}
				var got []string
				for _, fd := range findings(run(t, e, writeState(t, f))) {
					got = append(got, fd.Rule+" "+fd.Resource+": want "+fd.Expected+", found "+fd.Found)
				}
				if len(got) > 0 {
					t.Errorf("installed with %s:\n%s", install, strings.Join(got, "\n"))
				}
			}
		})
	}
}
