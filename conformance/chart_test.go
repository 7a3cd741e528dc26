package conformance

import (
	"fmt"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/karpgen/karpgen/internal/model"

	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/chartutil"
	"helm.sh/helm/v3/pkg/engine"
	"sigs.k8s.io/yaml"

	"github.com/karpgen/karpgen/internal/facts"
	"github.com/karpgen/karpgen/internal/oracle"
)

// freeForm are the values whose content the chart passes through as is.
var freeForm = []string{"affinity", "nodeSelector", "tolerations", "controller.resources", "serviceAccount.annotations"}

// unknownKeys lists the keys of values that the chart's values.yaml does
// not have (outside free-form maps): the chart would ignore them.
func unknownKeys(values, defaults map[string]any, prefix string) []string {
	var out []string
	for k, v := range values {
		path := strings.TrimPrefix(prefix+"."+k, ".")
		if contains(freeForm, path) {
			continue
		}
		d, ok := defaults[k]
		if !ok {
			out = append(out, path)
			continue
		}
		vm, isMap := v.(map[string]any)
		dm, defIsMap := d.(map[string]any)
		if isMap && defIsMap && len(dm) > 0 {
			out = append(out, unknownKeys(vm, dm, path)...)
		}
	}
	sort.Strings(out)
	return out
}

func contains(s []string, x string) bool {
	for _, y := range s {
		if y == x {
			return true
		}
	}
	return false
}

func loadChart(t testing.TB, m *facts.Minor) *chart.Chart {
	t.Helper()
	ch, err := loader.Load(filepath.Join(oracle.Dir(t), m.Reference, "chart"))
	if err != nil {
		t.Fatal(err)
	}
	// Release branches leave these stale; publishing stamps them.
	v := strings.TrimPrefix(m.Reference, "v")
	ch.Metadata.Version, ch.Metadata.AppVersion = v, v
	return ch
}

// renderChart renders the chart with the bundle's values, in-process.
func renderChart(t testing.TB, ch *chart.Chart, valuesYAML []byte, namespace string) map[string][]map[string]any {
	t.Helper()
	vals, err := chartutil.ReadValues(valuesYAML)
	if err != nil {
		t.Fatal(err)
	}
	rv, err := chartutil.ToRenderValues(ch, vals, chartutil.ReleaseOptions{Name: "karpenter", Namespace: namespace, IsInstall: true, Revision: 1}, chartutil.DefaultCapabilities)
	if err != nil {
		t.Fatal(err)
	}
	out, err := engine.Render(ch, rv)
	if err != nil {
		t.Fatalf("helm template: %v", err)
	}
	byKind := map[string][]map[string]any{}
	for name, text := range out {
		if !strings.HasSuffix(name, ".yaml") {
			continue
		}
		for _, doc := range strings.Split(text, "\n---") {
			var o map[string]any
			if err := yaml.Unmarshal([]byte(doc), &o); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if kind, ok := o["kind"].(string); ok {
				byKind[kind] = append(byKind[kind], o)
			}
		}
	}
	return byKind
}

func get(o any, path ...any) any {
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, _ := o.(map[string]any)
			o = m[k]
		case int:
			l, _ := o.([]any)
			if k >= len(l) {
				return nil
			}
			o = l[k]
		}
	}
	return o
}

// TestChart renders every matrix cell's values with that minor's chart
// and checks the Deployment and ServiceAccount it produces.
func TestChart(t *testing.T) {
	oracle.Dir(t)
	charts := map[string]*chart.Chart{}
	for _, v := range matrix() {
		t.Run(v.String(), func(t *testing.T) {
			ch, ok := charts[v.minor.Minor]
			if !ok {
				ch = loadChart(t, v.minor)
				charts[v.minor.Minor] = ch
			}
			b := render(t, v)
			p := richProfile(v)
			n := model.Resolve(p).Names
			var values map[string]any
			if err := yaml.Unmarshal(b.Files["helm/karpenter-values.yaml"], &values); err != nil {
				t.Fatal(err)
			}
			if unknown := unknownKeys(values, ch.Values, ""); len(unknown) > 0 {
				t.Errorf("values keys the %s chart does not have (it would ignore them): %v", v.minor.Reference, unknown)
			}
			objs := renderChart(t, ch, b.Files["helm/karpenter-values.yaml"], p.Karpenter.Namespace)
			if len(objs["Deployment"]) != 1 || len(objs["ServiceAccount"]) != 1 {
				t.Fatalf("chart rendered %d Deployments, %d ServiceAccounts", len(objs["Deployment"]), len(objs["ServiceAccount"]))
			}
			checkDeployment(t, v, n, objs["Deployment"][0])
			sa := objs["ServiceAccount"][0]
			if get(sa, "metadata", "name") != n.ServiceAccount || get(sa, "metadata", "namespace") != n.Namespace {
				t.Errorf("service account %v/%v, want %s/%s", get(sa, "metadata", "namespace"), get(sa, "metadata", "name"), n.Namespace, n.ServiceAccount)
			}
			ann, _ := get(sa, "metadata", "annotations").(map[string]any)
			if v.auth == "irsa" && ann["eks.amazonaws.com/role-arn"] != n.ControllerRoleARN {
				t.Errorf("IRSA service account annotations %v, want role %s", ann, n.ControllerRoleARN)
			}
			if v.auth == "podIdentity" && ann["eks.amazonaws.com/role-arn"] != nil {
				t.Errorf("pod identity service account has an IRSA annotation: %v", ann)
			}
		})
	}
}

// controller returns the controller container of the chart's Deployment
// and its environment variables that have a literal value.
func controller(t *testing.T, d map[string]any) (map[string]any, map[string]string) {
	t.Helper()
	var container map[string]any
	for _, c := range get(d, "spec", "template", "spec", "containers").([]any) {
		if c := c.(map[string]any); c["name"] == "controller" {
			container = c
		}
	}
	if container == nil {
		t.Fatal("no controller container")
	}
	env := map[string]string{}
	for _, e := range container["env"].([]any) {
		e := e.(map[string]any)
		if val, ok := e["value"].(string); ok {
			env[e["name"].(string)] = val
		}
	}
	return container, env
}

func checkDeployment(t *testing.T, v variant, n model.Names, d map[string]any) {
	t.Helper()
	p := richProfile(v)
	pod := get(d, "spec", "template", "spec")
	if got := fmt.Sprint(get(d, "spec", "replicas")); got != "3" {
		t.Errorf("replicas %s, want 3", got)
	}
	if got := get(pod, "serviceAccountName"); got != n.ServiceAccount {
		t.Errorf("serviceAccountName %v, want %s", got, n.ServiceAccount)
	}
	container, env := controller(t, d)
	want := map[string]string{"CLUSTER_NAME": n.Cluster, "LOG_LEVEL": "debug"}
	if v.queue {
		want["INTERRUPTION_QUEUE"] = n.Queue
	}
	for k, w := range want {
		if env[k] != w {
			t.Errorf("env %s = %q, want %q", k, env[k], w)
		}
	}
	if _, ok := env["INTERRUPTION_QUEUE"]; !v.queue && ok {
		t.Errorf("INTERRUPTION_QUEUE set without interruption handling: %q", env["INTERRUPTION_QUEUE"])
	}
	if v.minor.HasSetting("enableZonalShift") && env["ENABLE_ZONAL_SHIFT"] != "true" {
		t.Errorf("ENABLE_ZONAL_SHIFT = %q, want true", env["ENABLE_ZONAL_SHIFT"])
	}
	gates := env["FEATURE_GATES"]
	for _, g := range v.minor.FeatureGates {
		if w := fmt.Sprintf("%s%s=%v", strings.ToUpper(g.Name[:1]), g.Name[1:], p.Karpenter.FeatureGates[g.Name]); !strings.Contains(gates, w) {
			t.Errorf("FEATURE_GATES %q lacks %s", gates, w)
		}
	}
	wantRes := map[string]any{"requests": map[string]any{"cpu": "500m", "memory": "1Gi"}, "limits": map[string]any{"memory": "2Gi"}}
	if !reflect.DeepEqual(container["resources"], wantRes) {
		t.Errorf("resources %v, want %v", container["resources"], wantRes)
	}
	if sel := get(pod, "nodeSelector").(map[string]any); sel["nodegroup"] != "addon" || sel["kubernetes.io/os"] != "linux" {
		t.Errorf("nodeSelector %v does not pin the addon group", sel)
	}
	tolerated := map[string]bool{}
	for _, tol := range get(pod, "tolerations").([]any) {
		tolerated[fmt.Sprint(get(tol, "key"), "/", get(tol, "effect"))] = true
	}
	for _, taint := range p.NodeGroups["addon"].Taints {
		if !tolerated[taint.Key+"/"+taint.Effect] {
			t.Errorf("tolerations %v lack the addon taint %s:%s", tolerated, taint.Key, taint.Effect)
		}
	}
	expr := get(pod, "affinity", "nodeAffinity", "requiredDuringSchedulingIgnoredDuringExecution", "nodeSelectorTerms", 0, "matchExpressions", 0)
	if get(expr, "key") != "karpenter.sh/nodepool" || get(expr, "operator") != "DoesNotExist" {
		t.Errorf("affinity does not keep the controller off Karpenter nodes: %v", get(pod, "affinity"))
	}
	if get(d, "metadata", "namespace") != n.Namespace {
		t.Errorf("Deployment namespace %v, want %s", get(d, "metadata", "namespace"), n.Namespace)
	}
}

// TestUnknownValuesKeyIsCaught: a key a chart does not have, like the
// settings.interruptionQueueName a peer tool set, is reported by name.
func TestUnknownValuesKeyIsCaught(t *testing.T) {
	oracle.Dir(t)
	for _, m := range []*facts.Minor{facts.Oldest(), facts.Newest()} {
		ch := loadChart(t, m)
		values := map[string]any{
			"settings":     map[string]any{"clusterName": "x", "interruptionQueueName": "x", "featureGates": map[string]any{"drift": true}},
			"nodeSelector": map[string]any{"anything": "goes"},
		}
		got := unknownKeys(values, ch.Values, "")
		if want := []string{"settings.featureGates.drift", "settings.interruptionQueueName"}; !reflect.DeepEqual(got, want) {
			t.Errorf("%s: unknown keys %v, want %v", m.Reference, got, want)
		}
	}
}
