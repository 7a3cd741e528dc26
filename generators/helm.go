package generators

import (
	"github.com/karpgen/karpgen/internal/facts"
	"github.com/karpgen/karpgen/internal/model"
	"github.com/karpgen/karpgen/internal/profile"
)

// HelmValues are the values for the official karpenter chart of the
// profile's version. Every key exists in that version's values.yaml.
func HelmValues(e *model.Env) obj {
	m, n, pl := e.Facts, e.Names, e.Placement
	k := e.Profile.Karpenter
	settings := obj{
		"clusterName":       n.Cluster,
		"interruptionQueue": n.Queue, // the queue name, not its ARN; empty turns handling off
		"featureGates":      featureGates(m.FeatureGates, k.FeatureGates, e.Gates),
	}
	if len(m.AWSFeatureGates) > 0 {
		settings["awsFeatureGates"] = featureGates(m.AWSFeatureGates, k.AWSFeatureGates, nil)
	}
	if m.HasSetting("enableZonalShift") && k.ZonalShift != nil {
		settings["enableZonalShift"] = *k.ZonalShift
	}
	// vet has held every other setting to this chart; the derived ones win.
	for name, v := range k.Settings {
		if _, derived := settings[name]; !derived {
			settings[name] = v
		}
	}
	sa := obj{"create": true, "name": n.ServiceAccount}
	if k.Auth == profile.AuthIRSA {
		sa["annotations"] = obj{"eks.amazonaws.com/role-arn": n.ControllerRoleARN}
	}
	return obj{
		"settings":       settings,
		"serviceAccount": sa,
		"replicas":       k.Controller.Replicas,
		"logLevel":       k.Controller.LogLevel,
		"controller":     obj{"resources": obj{"requests": k.Controller.Resources.Requests, "limits": k.Controller.Resources.Limits}},
		"nodeSelector":   pl.ControllerSelector,
		"tolerations":    tolerationList(pl.ControllerTolerations),
		// The chart's own affinity, restated: never on nodes Karpenter
		// manages, one replica per node.
		"affinity": obj{
			"nodeAffinity": obj{"requiredDuringSchedulingIgnoredDuringExecution": obj{
				"nodeSelectorTerms": []any{obj{"matchExpressions": []any{
					obj{"key": keyNodePool, "operator": "DoesNotExist"},
				}}},
			}},
			"podAntiAffinity": obj{"requiredDuringSchedulingIgnoredDuringExecution": []any{
				obj{"topologyKey": "kubernetes.io/hostname"},
			}},
		},
	}
}

// featureGates writes the gates' values (model.GateValues) as the chart
// takes them.
func featureGates(gates []facts.Gate, set map[string]bool, needed []string) obj {
	out := obj{}
	for name, v := range model.GateValues(gates, set, needed) {
		out[name] = v
	}
	return out
}

// tolerationList is the pod spec form of tolerations (nil when none).
func tolerationList(ts []model.Toleration) []any {
	if len(ts) == 0 {
		return nil
	}
	return plain(ts).([]any)
}
