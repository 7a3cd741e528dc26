package facts

import "strings"

// DerivedSettings are the chart settings the bundle always sets from other
// parts of the profile, each with the profile field that decides it.
var DerivedSettings = map[string]string{
	"clusterName":       "cluster.name",
	"interruptionQueue": "karpenter.interruptionQueue and karpenter.queueName",
	"featureGates":      "karpenter.featureGates",
	"enableZonalShift":  "karpenter.zonalShift",
}

// SettingValues are the values of the chart settings that are enums, as
// the comments of the chart's values.yaml list them.
var SettingValues = map[string][]string{
	"minValuesPolicy":  {"Strict", "BestEffort"},
	"preferencePolicy": {"Respect", "Ignore"},
}

// Settings lists the scalar settings (settings.<name>) of the minor's
// chart with their defaults as JSON; nested maps (featureGates) are left
// out.
func Settings(minor string) map[string]string {
	out := map[string]string{}
	for k, v := range chartValues[minor] {
		name, ok := strings.CutPrefix(k, "settings.")
		if ok && !strings.Contains(name, ".") {
			out[name] = v
		}
	}
	return out
}

// HasSetting reports whether the minor's chart has settings.<name>.
func (m *Minor) HasSetting(name string) bool {
	_, ok := chartValues[m.Minor]["settings."+name]
	return ok
}

// SettingSince is the first v1 minor whose chart has settings.<name>, ""
// when none has.
func SettingSince(name string) string {
	for _, m := range Minors {
		if _, ok := chartValues[m.Minor]["settings."+name]; ok {
			return m.Minor
		}
	}
	return ""
}
