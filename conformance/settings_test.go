package conformance

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/karpgen/karpgen/generators"
	"github.com/karpgen/karpgen/internal/facts"
	"github.com/karpgen/karpgen/internal/lint"
	"github.com/karpgen/karpgen/internal/model"
	"github.com/karpgen/karpgen/internal/oracle"
	"github.com/karpgen/karpgen/internal/profile"

	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/chartutil"
	"helm.sh/helm/v3/pkg/engine"
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

func (r settingRun) run(settings map[string]any, gatesOff ...string) (refused []string, env map[string]string) {
	r.t.Helper()
	p := richProfile(r.v)
	p.Karpenter.Settings = settings
	for _, g := range gatesOff {
		delete(p.Karpenter.FeatureGates, g)
	}
	e := model.Resolve(p)
	for _, f := range lint.Check(e, profileSource{oracle.Normalize(p)}) {
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
	oracle.Dir(t)
	for _, m := range minors() {
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
				// A setting the chart refuses beside a gate the rich
				// profile turns on is tried with that gate off, against a
				// base with it off too (vet's conflict check is tested in
				// the lint package).
				off := conflictingGates(name)
				base := base
				if len(off) > 0 {
					_, base = r.run(nil, off...)
				}
				if chart[name] != "true" {
					val := settingValue(name, chart[name])
					refused, env := r.run(map[string]any{name: val}, off...)
					if len(refused) > 0 {
						t.Errorf("settings.%s = %v: vet refuses it: %v", name, val, refused)
					}
					if want, ok := compound[name]; ok {
						if changed := envDiff(base, env); !slices.Equal(changed, want) {
							t.Errorf("settings.%s = %v changed the controller's environment by %v, want %v", name, val, changed, want)
						}
					} else if changed := envDiff(base, env); len(changed) != 1 || env[changed[0]] != fmt.Sprint(val) {
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
				if since, ok := facts.AlwaysRendered[name]; ok && !facts.MinorLess(m.Minor, since) {
					// The chart writes it whatever its value.
					refused, env := r.run(map[string]any{name: empty}, off...)
					if len(refused) > 0 || env[envName(base, env, name)] != fmt.Sprint(empty) {
						t.Errorf("settings.%s = %#v: vet says %v, controller gets %v; want it accepted and passed on", name, empty, refused, envDiff(base, env))
					}
					continue
				}
				refused, env := r.run(map[string]any{name: empty}, off...)
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

// conflictingGates are the feature gates the chart refuses beside the
// setting.
func conflictingGates(name string) []string {
	var out []string
	for _, cf := range facts.SettingConflicts {
		if cf.Setting == "settings."+name {
			for _, w := range cf.With {
				if g, ok := strings.CutPrefix(w, "settings.featureGates."); ok {
					out = append(out, g)
				}
			}
		}
	}
	return out
}

// compound are the settings the chart turns into several variables:
// enableDRA turns on every DRA driver gate (AWS_FEATURE_GATES) and stops
// ignoring DRA requests (IGNORE_DRA_REQUESTS).
var compound = map[string][]string{"enableDRA": {"AWS_FEATURE_GATES", "IGNORE_DRA_REQUESTS"}}

// envName finds the variable a setting reaches: the one that differs, or
// the setting's name in upper snake case.
func envName(base, env map[string]string, name string) string {
	if d := envDiff(base, env); len(d) == 1 {
		return d[0]
	}
	var b strings.Builder
	for i, r := range name {
		if i > 0 && r >= 'A' && r <= 'Z' {
			b.WriteByte('_')
		}
		b.WriteRune(r)
	}
	return strings.ToUpper(b.String())
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
	oracle.Dir(t)
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

// TestSettingConflictsMatchTheChart: every combination the facts say the
// chart refuses makes the newest chart fail its render, and vet refuses
// it first, naming both; each half alone renders.
func TestSettingConflictsMatchTheChart(t *testing.T) {
	oracle.Dir(t)
	m := facts.Newest()
	ch := loadChart(t, m)
	for _, cf := range facts.SettingConflicts {
		for _, other := range cf.With {
			t.Run(cf.Setting+"+"+other, func(t *testing.T) {
				p := richProfile(variant{m, profile.AuthPodIdentity, true})
				p.Karpenter.Settings = map[string]any{}
				p.Karpenter.AWSFeatureGates = map[string]bool{}
				setKey(p, cf.Setting, true)
				setKey(p, other, true)
				e := model.Resolve(p)
				var refused []string
				for _, f := range lint.Check(e, profileSource{oracle.Normalize(p)}) {
					if f.Rule == "version/setting" && strings.Contains(f.Message, other+" cannot be combined with "+cf.Setting) {
						refused = append(refused, f.Message)
					}
				}
				if len(refused) != 1 {
					t.Errorf("vet says %v, want one refusal naming both", refused)
				}
				b, err := generators.Render(e)
				if err != nil {
					t.Fatal(err)
				}
				if err := chartRenders(ch, b.Files["helm/karpenter-values.yaml"], p.Karpenter.Namespace); err == nil || !strings.Contains(err.Error(), strings.TrimPrefix(cf.Setting, "")) {
					t.Errorf("the %s chart renders %s with %s: %v", m.Reference, cf.Setting, other, err)
				}
				// Either alone renders.
				for _, only := range []string{cf.Setting, other} {
					p := richProfile(variant{m, profile.AuthPodIdentity, true})
					p.Karpenter.Settings = map[string]any{}
					p.Karpenter.AWSFeatureGates = map[string]bool{}
					delete(p.Karpenter.FeatureGates, strings.TrimPrefix(other, "settings.featureGates."))
					setKey(p, only, true)
					b, err := generators.Render(model.Resolve(p))
					if err != nil {
						t.Fatal(err)
					}
					if err := chartRenders(ch, b.Files["helm/karpenter-values.yaml"], p.Karpenter.Namespace); err != nil {
						t.Errorf("%s alone: %v", only, err)
					}
				}
			})
		}
	}
}

// setKey sets a chart key in the profile where karpgen takes it from.
func setKey(p *profile.Profile, key string, v bool) {
	rest := strings.TrimPrefix(key, "settings.")
	if g, ok := strings.CutPrefix(rest, "featureGates."); ok {
		p.Karpenter.FeatureGates[g] = v
	} else if g, ok := strings.CutPrefix(rest, "awsFeatureGates."); ok {
		p.Karpenter.AWSFeatureGates[g] = v
	} else {
		p.Karpenter.Settings[rest] = v
	}
}

// chartRenders renders the chart and returns its error.
func chartRenders(ch *chart.Chart, valuesYAML []byte, namespace string) error {
	vals, err := chartutil.ReadValues(valuesYAML)
	if err != nil {
		return err
	}
	rv, err := chartutil.ToRenderValues(ch, vals, chartutil.ReleaseOptions{Name: "karpenter", Namespace: namespace, IsInstall: true, Revision: 1}, chartutil.DefaultCapabilities)
	if err != nil {
		return err
	}
	_, err = engine.Render(ch, rv)
	return err
}
