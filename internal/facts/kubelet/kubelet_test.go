package kubelet

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/karpgen/karpgen/internal/facts"
	"github.com/karpgen/karpgen/internal/oracle"

	"go.yaml.in/yaml/v3"
)

// TestCheck: fields and values as Karpenter's strict decode into the
// upstream type takes or refuses them.
func TestCheck(t *testing.T) {
	cfg := map[string]any{
		"maxPods":                          "min(max_pods, 110)",
		"containerLogMaxFiles":             float64(5),
		"containerLogMaxSize":              "50Mi",
		"shutdownGracePeriod":              "30s",
		"shutdownGracePeriodCriticalPods":  "soon",
		"serializeImagePulls":              "false",
		"podPidsLimit":                     1.5,
		"featureGates":                     map[string]any{"InPlacePodVerticalScaling": true, "Bad": "yes"},
		"memorySwap":                       map[string]any{"swapBehavior": "LimitedSwap", "swapLimit": "1Gi"},
		"shutdownGracePeriodByPodPriority": []any{map[string]any{"priority": float64(100), "shutdownGracePeriodSeconds": "ten"}},
		"registerWithTaints":               []any{},
		"maxPod":                           float64(3),
		"logging":                          map[string]any{"format": "json"},
	}
	var got []string
	for _, p := range Check(cfg) {
		got = append(got, fmt.Sprintf("%s: %s (%s)", dotted(p.Path), p.Message, p.Hint))
	}
	want := []string{
		`featureGates.Bad: kubelet featureGates.Bad is "yes", not true or false (k8s.io/kubelet v0.37.0) (give true or false)`,
		`maxPod: kubelet field "maxPod" is not a field of KubeletConfiguration (k8s.io/kubelet v0.37.0) (did you mean "maxPods"?)`,
		`memorySwap.swapLimit: kubelet memorySwap has no field "swapLimit" (k8s.io/kubelet v0.37.0) (fields: swapBehavior)`,
		`podPidsLimit: kubelet podPidsLimit is 1.5, not a whole number (k8s.io/kubelet v0.37.0) (give a whole number)`,
		`registerWithTaints: kubelet field "registerWithTaints" cannot be set: Karpenter sets it from the NodeClaim's taints, so that nodes register unschedulable until they are ready (remove it)`,
		`serializeImagePulls: kubelet serializeImagePulls is "false", not true or false (k8s.io/kubelet v0.37.0) (give true or false)`,
		`shutdownGracePeriodByPodPriority[0].shutdownGracePeriodSeconds: kubelet shutdownGracePeriodByPodPriority[0].shutdownGracePeriodSeconds is "ten", not a whole number (k8s.io/kubelet v0.37.0) (give a whole number)`,
		`shutdownGracePeriodCriticalPods: kubelet shutdownGracePeriodCriticalPods is "soon", not a duration such as "30s" (k8s.io/kubelet v0.37.0) (give a duration such as "30s")`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if n := len(Fields()); n < 100 {
		t.Errorf("%d fields", n)
	}
}

// TestCompile: expressions compile against Karpenter's variables and
// return a number; those the table can answer evaluate per type.
func TestCompile(t *testing.T) {
	for _, c := range []struct {
		expr, err string
		needs     string
		eval      int64
	}{
		{expr: "min(max_pods, 110)", eval: 29},
		{expr: "default_enis * (ips_per_eni - 1) + 2", eval: 29},
		{expr: "max(2.5, 1) * 10.0", eval: 25},
		{expr: "max(2.5, 1) * 10", err: "no matching overload"},
		{expr: "vcpus * 10 + 100", needs: "vcpus"},
		{expr: "memory_mib / 100", needs: "memory_mib"},
		{expr: "cpus * 10", err: "undeclared reference to 'cpus'"},
		{expr: `instance_type + "x"`, err: "it returns string; it must return an int or a double"},
		{expr: "max_pods >", err: "Syntax error"},
	} {
		e, err := Compile(c.expr)
		switch {
		case c.err != "":
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%s: error %v, want %q", c.expr, err, c.err)
			}
			continue
		case err != nil:
			t.Errorf("%s: %v", c.expr, err)
			continue
		}
		if strings.Join(e.Needs, ",") != c.needs {
			t.Errorf("%s: needs %v, want %q", c.expr, e.Needs, c.needs)
		}
		v, ok := e.Eval(Vars{DefaultENIs: 3, IPsPerENI: 10, MaxPods: 29, InstanceType: "m5.large"})
		if ok != (c.needs == "") || ok && v != c.eval {
			t.Errorf("%s: %d %v, want %d", c.expr, v, ok, c.eval)
		}
	}
}

// TestSubsetIsTheCRDs: before 1.15 the EC2NodeClass CRD lists exactly
// Subset's fields; from 1.15 it takes an open map.
func TestSubsetIsTheCRDs(t *testing.T) {
	dir := oracle.Dir(t)
	for _, m := range facts.Minors {
		data, err := os.ReadFile(filepath.Join(dir, m.Reference, "crds", "karpenter.k8s.aws_ec2nodeclasses.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		var crd struct {
			Spec struct {
				Versions []struct {
					Schema struct {
						OpenAPIV3Schema struct {
							Properties map[string]struct {
								Properties map[string]struct {
									Properties map[string]any `yaml:"properties"`
								} `yaml:"properties"`
							} `yaml:"properties"`
						} `yaml:"openAPIV3Schema"`
					} `yaml:"schema"`
				} `yaml:"versions"`
			} `yaml:"spec"`
		}
		if err := yaml.Unmarshal(data, &crd); err != nil {
			t.Fatal(err)
		}
		got := slices.Sorted(maps.Keys(crd.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"].Properties["kubelet"].Properties))
		want := slices.Sorted(slices.Values(Subset()))
		if m.OpenKubelet {
			want = nil
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s: the CRD's kubelet fields %v, want %v", m.Reference, got, want)
		}
	}
}

// TestExpensiveExpressionStops: an expression built to run long (nested
// comprehensions) stops at the cost limit instead of running away.
func TestExpensiveExpressionStops(t *testing.T) {
	list := "[" + strings.Repeat("1,", 99) + "1]"
	e, err := Compile("size(" + list + ".map(a, " + list + ".map(b, " + list + ".map(c, a + b + c))))")
	if err != nil {
		t.Fatal(err)
	}
	if v, ok := e.Eval(Vars{DefaultENIs: 3, IPsPerENI: 10, MaxPods: 29, InstanceType: "m5.large"}); ok {
		t.Errorf("evaluated to %d", v)
	}
	if v, ok := mustCompile(t, "min(max_pods, 110) + default_enis * ips_per_eni").Eval(Vars{DefaultENIs: 3, IPsPerENI: 10, MaxPods: 29}); !ok || v != 59 {
		t.Errorf("a plain expression: %d %v", v, ok)
	}
}

func mustCompile(t *testing.T, expr string) *Expr {
	t.Helper()
	e, err := Compile(expr)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// TestValidate: an expression is refused on an instance type where
// Karpenter's node class validation refuses it: an evaluation error, a
// non-finite double, a maxPods outside 0 to 2^31-1, a negative
// reservation; the edges of the range are taken.
func TestValidate(t *testing.T) {
	types := []Vars{
		{DefaultENIs: 3, IPsPerENI: 10, MaxPods: 29, InstanceType: "m5.large"},
		{DefaultENIs: 15, IPsPerENI: 50, MaxPods: 737, InstanceType: "m5.24xlarge"},
	}
	for _, tc := range []struct {
		expr  string
		field Field
		want  string
	}{
		{"0", MaxPods, ""},
		{"2147483647", MaxPods, ""},
		{"2147483648", MaxPods, "m5.large: it is 2147483648, outside 0 to 2147483647; m5.24xlarge: it is 2147483648, outside 0 to 2147483647"},
		{"max_pods - 100", MaxPods, "m5.large: it is -71, outside 0 to 2147483647"},
		{"0 - 1", Reserved, "m5.large: it is -1, a negative reservation; m5.24xlarge: it is -1, a negative reservation"},
		{"0 - 1", MaxPods, "m5.large: it is -1, outside 0 to 2147483647; m5.24xlarge: it is -1, outside 0 to 2147483647"},
		{"100 / (default_enis - 3)", Reserved, "m5.large: it fails: division by zero"},
		{"1.0 / 0.0", Reserved, "m5.large: it is +Inf, not a finite number; m5.24xlarge: it is +Inf, not a finite number"},
		{"1e300", Reserved, "m5.large: it is 1e+300, beyond any whole number Karpenter can hold; m5.24xlarge: it is 1e+300, beyond any whole number Karpenter can hold"},
		{"vcpus * 10 - 20", Reserved, "m5.large (the smallest instance types (1 vCPU, 512 MiB)): it is -10, a negative reservation"},
		{"memory_mib / 100", Reserved, ""},
	} {
		var got []string
		for _, f := range mustCompile(t, tc.expr).Validate(tc.field, types) {
			name := f.Type
			if f.Bound != "" {
				name += " (" + f.Bound + ")"
			}
			got = append(got, name+": "+f.Why)
		}
		if strings.Join(got, "; ") != tc.want {
			t.Errorf("%q: %q, want %q", tc.expr, strings.Join(got, "; "), tc.want)
		}
	}
}
