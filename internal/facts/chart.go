package facts

import (
	_ "embed"
	"encoding/json"
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"
)

//go:generate go run ../../hack/chartvalues

//go:embed data/chart_values.tsv
var chartValuesTSV string

// chartValues are the leaf keys (dotted paths) of each minor's chart
// values.yaml, with their defaults as JSON, read from the table when
// first asked for, not while the program starts.
var chartValues = sync.OnceValue(func() map[string]map[string]string {
	out := map[string]map[string]string{}
	for _, line := range strings.Split(chartValuesTSV, "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.SplitN(line, "\t", 3)
		if len(f) != 3 {
			panic("facts: a chart values row without three fields: " + line)
		}
		if out[f[0]] == nil {
			out[f[0]] = map[string]string{}
		}
		out[f[0]][f[1]] = f[2]
	}
	return out
})

// ChartValues returns the leaf keys of the minor's chart values.yaml
// (dotted paths, "settings.featureGates.nodeRepair") with their defaults
// as JSON; nil for a minor karpgen has no chart of. "0.37" is the last
// v1beta1 minor, for upgrades from it.
func ChartValues(minor string) map[string]string { return chartValues()[minor] }

// StampedValues are values keys upstream stamps when it publishes a
// chart: in the release branches' values.yaml they are stale, so they say
// nothing about a release.
var StampedValues = []string{"controller.image.digest", "controller.image.tag"}

// ValuesLeaves flattens a Helm values document into its leaf keys with
// their values as JSON. An empty map or list is a leaf.
func ValuesLeaves(data []byte) (map[string]string, error) {
	var v any
	if err := yaml.Unmarshal(data, &v); err != nil {
		return nil, err
	}
	out := map[string]string{}
	var walk func(prefix string, v any)
	walk = func(prefix string, v any) {
		if m, ok := v.(map[string]any); ok && len(m) > 0 {
			for k, x := range m {
				p := k
				if prefix != "" {
					p = prefix + "." + k
				}
				walk(p, x)
			}
			return
		}
		js, _ := json.Marshal(v)
		out[prefix] = string(js)
	}
	walk("", v)
	return out, nil
}

// Parent returns the nearest key of values that is a prefix of path: a
// path under a free-form map (annotations, nodeSelector) has its map as
// the leaf; "" when none.
func Parent(values map[string]string, path string) string {
	for p := path; p != ""; {
		if _, ok := values[p]; ok {
			return p
		}
		i := strings.LastIndex(p, ".")
		if i < 0 {
			return ""
		}
		p = p[:i]
	}
	return ""
}
