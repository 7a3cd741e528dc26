package conformance

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/karpgen/karpgen/generators"
	"github.com/karpgen/karpgen/generators/facts"
	"github.com/karpgen/karpgen/internal/lint"
	"github.com/karpgen/karpgen/internal/model"
	"github.com/karpgen/karpgen/internal/profile"
	"github.com/karpgen/karpgen/internal/reference"

	"helm.sh/helm/v3/pkg/chart"
)

// settingValue picks a value vet accepts for a setting that differs from
// the chart's default and is not one the chart's `with` skips.
func settingValue(name, def string) any {
	if allowed := facts.SettingValues[name]; allowed != nil {
		for _, a := range allowed {
			if `"`+a+`"` != def {
				return a
			}
		}
	}
	switch {
	case def == "false":
		return true
	case !strings.HasPrefix(def, `"`):
		return 0.25
	case name == "clusterEndpoint":
		return "https://EXAMPLE.gr7.ap-northeast-2.eks.amazonaws.com"
	case name == "clusterCABundle":
		return "Q0EgYnVuZGxl"
	case def == `"0"`:
		return "3"
	}
	return "7s"
}

// settingRun renders a profile with the given settings through karpgen
// and the minor's chart; it returns vet's version/setting messages and
// the controller container's environment.
type settingRun struct {
	t     *testing.T
	v     variant
	chart *chart.Chart
}

func (r settingRun) run(settings map[string]any) (refused []string, env map[string]string) {
	r.t.Helper()
	p := richProfile(r.v)
	p.Karpenter.Settings = settings
	e := model.Resolve(p)
	for _, f := range lint.Check(e, profileSource{reference.Normalize(p)}) {
		if f.Rule == "version/setting" {
			refused = append(refused, f.Message)
		}
	}
	b, err := generators.Render(e)
	if err != nil {
		r.t.Fatal(err)
	}
	objs := renderChart(r.t, r.chart, b.Files["helm/karpenter-values.yaml"], p.Karpenter.Namespace)
	_, env = controller(r.t, objs["Deployment"][0])
	return refused, env
}

// envDiff lists the variables that differ between two environments.
func envDiff(a, b map[string]string) []string {
	var out []string
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			out = append(out, k)
		}
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}

// TestSettingsReachTheController sets, one at a time, every scalar
// setting of every minor's chart that a profile may set: vet accepts the
// value and it reaches the controller's environment as one variable with
// that value. A false, 0 or empty value where the default is not would be
// left out by the chart, so vet refuses it, and the test shows the chart
// does leave it out.
func TestSettingsReachTheController(t *testing.T) {
	reference.Dir(t)
	for i := range facts.Minors {
		m := &facts.Minors[i]
		t.Run(m.Minor, func(t *testing.T) {
			r := settingRun{t, variant{m, profile.AuthPodIdentity, true}, loadChart(t, m)}
			_, base := r.run(nil)
			chart := facts.Settings(m.Minor)
			for _, name := range slices.Sorted(maps.Keys(chart)) {
				if _, derived := facts.DerivedSettings[name]; derived {
					continue
				}
				// A bool that defaults to true has no other value that
				// reaches the controller; only its empty value is checked.
				if chart[name] != "true" {
					val := settingValue(name, chart[name])
					refused, env := r.run(map[string]any{name: val})
					if len(refused) > 0 {
						t.Errorf("settings.%s = %v: vet refuses it: %v", name, val, refused)
					}
					if changed := envDiff(base, env); len(changed) != 1 || env[changed[0]] != fmt.Sprint(val) {
						t.Errorf("settings.%s = %v changed the controller's environment by %v, want one variable set to %v", name, val, changed, val)
					}
				}
				var def any
				if err := json.Unmarshal([]byte(chart[name]), &def); err != nil {
					t.Fatal(err)
				}
				empty := zeroOf(def)
				if fmt.Sprint(empty) == fmt.Sprint(def) {
					continue
				}
				refused, env := r.run(map[string]any{name: empty})
				if len(refused) != 1 || !strings.Contains(refused[0], "does not reach the controller") {
					t.Errorf("settings.%s = %#v: vet says %v, want it refused as not reaching the controller", name, empty, refused)
				}
				changed := envDiff(base, env)
				if len(changed) != 1 {
					t.Errorf("settings.%s = %#v changed the environment by %v, want one variable left out", name, empty, changed)
				} else if _, set := env[changed[0]]; set {
					t.Errorf("settings.%s = %#v set %s=%q; vet assumes the chart leaves it out", name, empty, changed[0], env[changed[0]])
				}
			}
		})
	}
}

// zeroOf is the value of a default's type that a template's `with` skips.
func zeroOf(def any) any {
	switch def.(type) {
	case bool:
		return false
	case string:
		return ""
	}
	return 0
}

// TestSettingsCannotAddToTheManifest: the chart writes a setting inside a
// quoted YAML string without escaping it, so a quote and a newline add an
// environment variable of the attacker's choosing to the controller. vet
// refuses the value; the chart, given it anyway, shows why.
func TestSettingsCannotAddToTheManifest(t *testing.T) {
	reference.Dir(t)
	m := &facts.Minors[len(facts.Minors)-1]
	r := settingRun{t, variant{m, profile.AuthPodIdentity, true}, loadChart(t, m)}
	hostile := "https://x\"\n            - name: HTTPS_PROXY\n              value: \"http://proxy.example"
	refused, env := r.run(map[string]any{"clusterEndpoint": hostile})
	if len(refused) != 1 || !strings.Contains(refused[0], "unescaped inside a quoted YAML string") {
		t.Errorf("vet says %v, want the value refused", refused)
	}
	if env["HTTPS_PROXY"] != "http://proxy.example" {
		t.Errorf("the chart did not add HTTPS_PROXY (env %v): the rule's premise no longer holds and may be relaxed", env)
	}
}
