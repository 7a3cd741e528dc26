package doctor

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/karpgen/karpgen/generators"
	"github.com/karpgen/karpgen/internal/facts"
)

// checkHelmless checks a controller installed without Helm (the chart
// rendered with helm template and applied) from its Deployment: what the
// chart's template makes of the values the bundle renders, for the
// values it writes into the Deployment: replicas, LOG_LEVEL and each
// gate of FEATURE_GATES. Each value is the bundle's, else the chart's
// default for the profile's minor.
func checkHelmless(c *checkRun) {
	n := c.e.Names
	resource := "deployment " + n.Namespace + "/karpenter (installed without Helm)"
	var d k8sDeployment
	if !c.load("k8s-karpenter-deployment.json", &d, resource, "the controller", c.deployController()) {
		return
	}
	values := leaves(generators.HelmValues(c.e))
	defaults := facts.ChartValues(c.e.Facts.Minor)
	value := func(key string) (string, bool) {
		v, ok := values[key]
		if !ok {
			v, ok = defaults[key]
		}
		var x any
		if ok && json.Unmarshal([]byte(v), &x) == nil {
			if t, scalar := scalarText(x); scalar {
				return t, true
			}
		}
		return "", false
	}
	if want, ok := value("replicas"); ok {
		have := "(unset)"
		if d.Spec.Replicas != nil {
			have = fmt.Sprint(*d.Spec.Replicas)
		}
		if have != want {
			c.report(resource, "replicas "+want, "replicas "+have, c.deployController())
		}
	}
	for _, ct := range d.Spec.Template.Spec.Containers {
		if ct.Name != "controller" {
			continue
		}
		env := map[string]string{}
		for _, v := range ct.Env {
			env[v.Name] = v.Value
		}
		if want, ok := value("logLevel"); ok && env["LOG_LEVEL"] != want {
			c.report(resource, "LOG_LEVEL="+want, "LOG_LEVEL="+orNone(env["LOG_LEVEL"]), c.deployController())
		}
		// FEATURE_GATES is "ReservedCapacity=true,NodeRepair=false,...":
		// the gates' names with a capital first letter.
		have := map[string]string{}
		for _, kv := range strings.Split(env["FEATURE_GATES"], ",") {
			if k, v, ok := strings.Cut(kv, "="); ok {
				have[strings.ToLower(k)] = v
			}
		}
		gates := map[string]bool{}
		for k := range values {
			if g, ok := strings.CutPrefix(k, "settings.featureGates."); ok {
				gates[g] = true
			}
		}
		for k := range defaults {
			if g, ok := strings.CutPrefix(k, "settings.featureGates."); ok {
				gates[g] = true
			}
		}
		for _, g := range slices.Sorted(maps.Keys(gates)) {
			want, ok := value("settings.featureGates." + g)
			got, present := have[strings.ToLower(g)]
			if ok && present && got != want {
				c.report(resource, "feature gate "+g+"="+want+" (FEATURE_GATES)", g+"="+got, c.deployController())
			}
		}
	}
}
