package facts

import "testing"

// TestArrival holds the arrivals to what upstream's changelogs and CRDs
// say: Balanced consolidation in 1.14, Gte and Lte in 1.9, windows2025
// in 1.9, reserved capacity in 1.3, the Unhealthy budget reason, AWS
// feature gates and the open kubelet map in 1.15; what v1 shipped with
// arrives in 1.0, and a value no minor has is absent.
func TestArrival(t *testing.T) {
	for _, c := range []struct {
		what, got, want string
	}{
		{"Balanced", Arrival.ConsolidationPolicies["Balanced"], "1.14"},
		{"WhenEmpty", Arrival.ConsolidationPolicies["WhenEmpty"], "1.0"},
		{"Gte", Arrival.RequirementOperators["Gte"], "1.9"},
		{"Lte", Arrival.RequirementOperators["Lte"], "1.9"},
		{"In", Arrival.RequirementOperators["In"], "1.0"},
		{"windows2025", Arrival.AMIFamilies["windows2025"], "1.9"},
		{"al2023", Arrival.AMIFamilies["al2023"], "1.0"},
		{"reserved", Arrival.CapacityTypes[ReservedCapacity], "1.3"},
		{"spot", Arrival.CapacityTypes["spot"], "1.0"},
		{"Unhealthy", Arrival.BudgetReasons["Unhealthy"], "1.15"},
		{"Drifted", Arrival.BudgetReasons["Drifted"], "1.0"},
		{"AWS feature gates", Arrival.AWSFeatureGates, "1.15"},
		{"open kubelet", Arrival.OpenKubelet, "1.15"},
	} {
		if c.got != c.want {
			t.Errorf("%s arrives in %q, want %q", c.what, c.got, c.want)
		}
	}
	if m, ok := Arrival.AMIFamilies["ubuntu"]; ok {
		t.Errorf("ubuntu arrives in %s; v1 removed it", m)
	}
}

// TestMinorBefore compares minors whatever the patches, Beta holds 0.33
// to 0.37 only and Alpha 0.31 and 0.32.
func TestMinorBefore(t *testing.T) {
	v := func(s string) Version {
		t.Helper()
		x, err := ParseVersion(s)
		if err != nil {
			t.Fatal(err)
		}
		return x
	}
	for _, c := range []struct {
		a, b string
		want bool
	}{
		{"1.2.9", "1.3.0", true}, {"1.3.0", "1.3.9", false}, {"1.3.9", "1.3.0", false},
		{"0.37.8", "1.0.0", true}, {"1.10.0", "1.9.0", false}, {"1.9.5", "1.10.0", true},
	} {
		if got := v(c.a).MinorBefore(v(c.b)); got != c.want {
			t.Errorf("%s.MinorBefore(%s) = %v", c.a, c.b, got)
		}
	}
	for s, want := range map[string]bool{"0.32.9": false, "0.33.0": true, "0.37.8": true, "0.38.0": false, "1.0.0": false} {
		if got := Beta.Holds(v(s)); got != want {
			t.Errorf("Beta.Holds(%s) = %v", s, got)
		}
	}
	for s, want := range map[string]bool{"0.30.9": false, "0.31.0": true, "0.32.10": true, "0.33.0": false, "1.0.0": false} {
		if got := Alpha.Holds(v(s)); got != want {
			t.Errorf("Alpha.Holds(%s) = %v", s, got)
		}
	}
}
