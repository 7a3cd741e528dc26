package conformance

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"sigs.k8s.io/yaml"

	"github.com/karpgen/karpgen/generators"
	"github.com/karpgen/karpgen/internal/doctor"
	"github.com/karpgen/karpgen/internal/model"
	"github.com/karpgen/karpgen/internal/oracle"
	"github.com/karpgen/karpgen/internal/profile"
)

// installedCRDs is what `kubectl get crd -o json` lists once a minor's
// karpenter-crd chart is installed: its real CRDs, each storing its
// storage version, and another CRD of the cluster.
func installedCRDs(t *testing.T, dir string) []byte {
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	items := []any{map[string]any{"kind": "CustomResourceDefinition", "metadata": map[string]any{"name": "certificates.cert-manager.io"},
		"spec": map[string]any{"versions": []any{map[string]any{"name": "v1", "served": true, "storage": true}}}, "status": map[string]any{"storedVersions": []any{"v1"}}}}
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		var crd map[string]any
		if err := yaml.Unmarshal(data, &crd); err != nil {
			t.Fatal(err)
		}
		var stored []any
		for _, v := range get(crd, "spec", "versions").([]any) {
			if v.(map[string]any)["storage"] == true {
				stored = append(stored, v.(map[string]any)["name"])
			}
		}
		crd["status"] = map[string]any{"storedVersions": stored}
		items = append(items, crd)
	}
	data, err := json.Marshal(map[string]any{"apiVersion": "v1", "kind": "List", "items": items})
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestDoctorOnRealCRDs: for every minor, a healthy capture built from
// that minor's real artifacts (the cluster's whole CRD list with the
// minor's CRDs as its chart installs them, the controller Deployment its
// chart renders with the bundle's values, those values) passes
// doctor/crds, doctor/controller and doctor/helm-values for a profile that
// uses every kind the minor has;
// without the NodeOverlay CRD (for a profile that uses overlays) it fails
// naming it.
func TestDoctorOnRealCRDs(t *testing.T) {
	dir := oracle.Dir(t)
	checkedOverlays, withOverlays := 0, 0
	for _, m := range minors() {
		if slices.Contains(m.CRDs, "NodeOverlay") {
			withOverlays++
		}
	}
	defer func() {
		if checkedOverlays < withOverlays || withOverlays == 0 {
			t.Errorf("the missing NodeOverlay CRD was tried on %d minors of the %d that have it", checkedOverlays, withOverlays)
		}
	}()
	for _, v := range matrix() {
		if v.auth != "podIdentity" || !v.queue {
			continue
		}
		t.Run(v.minor.Minor, func(t *testing.T) {
			p := richProfile(v)
			// Every kind the minor has, so its CRD is checked too.
			if slices.Contains(v.minor.CRDs, "NodeOverlay") {
				p.NodeOverlays = map[string]profile.NodeOverlay{"discount": {
					Requirements:    []profile.Requirement{{Key: "karpenter.sh/capacity-type", Operator: "In", Values: []string{"on-demand"}}},
					PriceAdjustment: "-10%"}}
			}
			if slices.Contains(v.minor.CRDs, "CapacityBuffer") {
				two := 2
				p.CapacityBuffers = map[string]profile.CapacityBuffer{"web": {Namespace: "default", PodTemplate: "web-chunk", Replicas: &two}}
			}
			e := model.Resolve(p)
			b, err := generators.Render(e)
			if err != nil {
				t.Fatal(err)
			}
			// The controller as the minor's real chart deploys it with the
			// bundle's values, and those values as helm get values prints.
			ch := loadChart(t, v.minor)
			// Publishing stamps the release's image into the chart; a
			// release branch's values.yaml still names the one before.
			img := get(ch.Values, "controller", "image").(map[string]any)
			img["tag"], img["digest"] = strings.TrimPrefix(v.minor.Reference, "v"), ""
			objs := renderChart(t, ch, b.Files["helm/karpenter-values.yaml"], e.Names.Namespace)
			deployment, err := json.Marshal(objs["Deployment"][0])
			if err != nil {
				t.Fatal(err)
			}
			var values any
			if err := yaml.Unmarshal(b.Files["helm/karpenter-values.yaml"], &values); err != nil {
				t.Fatal(err)
			}
			valuesJSON, _ := json.Marshal(values)
			state := fstest.MapFS{
				"k8s-crds.json":                 {Data: installedCRDs(t, filepath.Join(dir, v.minor.Reference, "crds"))},
				"k8s-karpenter-deployment.json": {Data: deployment},
				"helm-values.json":              {Data: valuesJSON},
			}
			r, err := doctor.Run(e, doctor.NewState(state, "state"))
			if err != nil {
				t.Fatal(err)
			}
			for _, res := range r.Results {
				switch res.Check {
				case "doctor/crds", "doctor/controller", "doctor/helm-values":
					if res.Status != "ok" || len(res.Findings) > 0 {
						t.Errorf("%s on a healthy cluster: %s %+v", res.Check, res.Status, res.Findings)
					}
				}
			}
			if len(e.Profile.NodeOverlays) == 0 {
				return
			}
			checkedOverlays++
			var list map[string]any
			json.Unmarshal(state["k8s-crds.json"].Data, &list)
			var kept []any
			for _, it := range list["items"].([]any) {
				if get(it, "metadata", "name") != "nodeoverlays.karpenter.sh" {
					kept = append(kept, it)
				}
			}
			list["items"] = kept
			data, _ := json.Marshal(list)
			r, err = doctor.Run(e, doctor.NewState(fstest.MapFS{"k8s-crds.json": {Data: data}}, "state"))
			if err != nil {
				t.Fatal(err)
			}
			found := false
			for _, res := range r.Results {
				for _, f := range res.Findings {
					found = found || (f.Rule == "doctor/crds" && f.Resource == "CRD nodeoverlays.karpenter.sh" && f.Found == "absent")
				}
			}
			if !found {
				t.Errorf("a profile with node overlays and no NodeOverlay CRD passes")
			}
		})
	}
}
