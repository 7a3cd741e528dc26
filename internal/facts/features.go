package facts

//go:generate go run ../../hack/features

// Feature is a profile field that exists from a Karpenter minor on: the
// schema accepts it, vet refuses it on older minors (naming the minor it
// arrives in), the generators emit it and set the chart feature gate it
// needs. The field's @since attribute in schema/profile.cue says so;
// Features (features_gen.go) is generated from those attributes.
// TestFeaturesMatchUpstream holds each to the CRDs: the field (or kind)
// is in its first minor's CRD and not in the minor before.
type Feature struct {
	// Path is the profile field; * stands for any name and [] for any
	// list index ("nodeClasses.*.blockDevices[].volumeInitializationRate").
	Path string
	// Since is the first minor that has it.
	Since string
	// Gate is the chart feature gate it needs on, "" for none.
	Gate string
	// Kind and CRDPath are where upstream declares it: a kind and a dotted
	// path below its spec ([] for list items); CRDPath "" for a kind of
	// its own.
	Kind, CRDPath string
}

// Has reports whether the minor has the feature.
func (m *Minor) Has(f Feature) bool {
	var a, b Version
	a, _ = ParseVersion(m.Minor + ".0")
	b, _ = ParseVersion(f.Since + ".0")
	return !a.Less(b)
}

// ReservedCapacity is the capacity type of reserved instances
// (capacity reservations), which needs the reservedCapacity gate.
const ReservedCapacity = "reserved"

// Arrivals are the oldest minors that have each value of an enum, and
// each setting: where it arrives. A value no minor has is absent, and a
// setting no minor has is "".
type Arrivals struct {
	BudgetReasons, ConsolidationPolicies, CapacityTypes, AMIFamilies, RequirementOperators map[string]string
	// AWSFeatureGates is the first minor with AWS feature gates, and
	// OpenKubelet the first whose kubelet map is open.
	AWSFeatureGates, OpenKubelet string
}

// Arrival is where each value and setting of the table arrives.
var Arrival = arrivals()

func arrivals() Arrivals {
	a := Arrivals{
		BudgetReasons: map[string]string{}, ConsolidationPolicies: map[string]string{}, CapacityTypes: map[string]string{},
		AMIFamilies: map[string]string{}, RequirementOperators: map[string]string{},
	}
	first := func(into map[string]string, values []string, minor string) {
		for _, v := range values {
			if _, ok := into[v]; !ok {
				into[v] = minor
			}
		}
	}
	for _, m := range Minors {
		first(a.BudgetReasons, m.BudgetReasons, m.Minor)
		first(a.ConsolidationPolicies, m.ConsolidationPolicies, m.Minor)
		first(a.CapacityTypes, m.CapacityTypes, m.Minor)
		first(a.AMIFamilies, m.AMIFamilies, m.Minor)
		first(a.RequirementOperators, m.RequirementOperators, m.Minor)
		if a.AWSFeatureGates == "" && len(m.AWSFeatureGates) > 0 {
			a.AWSFeatureGates = m.Minor
		}
		if a.OpenKubelet == "" && m.OpenKubelet {
			a.OpenKubelet = m.Minor
		}
	}
	return a
}
