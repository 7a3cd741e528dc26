package facts

import "strings"

// DerivedSettings are the chart settings the bundle always sets from other
// parts of the profile, each with the profile field that decides it.
var DerivedSettings = map[string]string{
	"clusterName":       "cluster.name",
	"interruptionQueue": "karpenter.interruptionQueue and karpenter.queueName",
	"featureGates":      "karpenter.featureGates",
	"awsFeatureGates":   "karpenter.awsFeatureGates",
	"enableZonalShift":  "karpenter.zonalShift",
}

// SettingValues are the values of the chart settings that are enums, as
// the comments of the chart's values.yaml list them.
var SettingValues = map[string][]string{
	"minValuesPolicy":  {"Strict", "BestEffort"},
	"preferencePolicy": {"Respect", "Ignore"},
}

// NullDefaults are the settings whose chart default is null, with the
// default the chart documents and applies in its place.
var NullDefaults = map[string]string{"ignoreDRARequests": "true"}

// AlwaysRendered are the settings a chart writes to the controller even
// when false, from the minor whose chart does so (1.15's writes
// IGNORE_DRA_REQUESTS whatever its value; older charts leave false out).
var AlwaysRendered = map[string]string{"ignoreDRARequests": "1.15"}

// GateNeeds are the AWS feature gates that do nothing without a chart
// feature gate on (the chart's values.yaml says so of each).
var GateNeeds = map[string]string{"rebootForRepair": "nodeRepair"}

// SettingConflict is a setting the chart refuses in the company of
// others: its render fails naming both.
type SettingConflict struct {
	// Setting is the chart key that conflicts when true.
	Setting string
	// With are the keys that may not be set alongside it: set at all, or
	// set to true when WithTrue.
	With     []string
	WithTrue bool
	// Why is the chart's reason.
	Why string
}

// SettingConflicts are the combinations the charts refuse (1.15's).
var SettingConflicts = []SettingConflict{
	{Setting: "settings.enableDRA", With: []string{"settings.awsFeatureGates.draNVIDIAGPU", "settings.awsFeatureGates.draEFA", "settings.ignoreDRARequests"},
		Why: "enableDRA turns on every DRA driver gate and stops ignoring DRA requests itself"},
	{Setting: "settings.legacyNodeRepair", With: []string{"settings.featureGates.terminateFirstRepair"}, WithTrue: true,
		Why: "the legacy node repair controller does not support terminate-first repair"},
}

// Settings lists the scalar settings (settings.<name>) of the minor's
// chart with their defaults as JSON (a null default replaced by the one
// the chart documents); nested maps (featureGates) are left out.
func Settings(minor string) map[string]string {
	out := map[string]string{}
	for k, v := range ChartValues(minor) {
		name, ok := strings.CutPrefix(k, "settings.")
		if ok && !strings.Contains(name, ".") {
			if d, ok := NullDefaults[name]; ok && v == "null" {
				v = d
			}
			out[name] = v
		}
	}
	return out
}

// HasSetting reports whether the minor's chart has settings.<name>.
func (m *Minor) HasSetting(name string) bool {
	_, ok := ChartValues(m.Minor)["settings."+name]
	return ok
}

// SettingSince is the first v1 minor whose chart has settings.<name>, ""
// when none has.
func SettingSince(name string) string {
	for _, m := range Minors {
		if _, ok := ChartValues(m.Minor)["settings."+name]; ok {
			return m.Minor
		}
	}
	return ""
}
