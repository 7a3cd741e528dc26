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

// chartBlocks are the table's rows by minor, not yet parsed: the table
// lists each minor's rows together, and a command asks for one or two
// minors, so a minor's rows become a map only when first asked for.
var chartBlocks = sync.OnceValue(func() map[string]string {
	blocks := map[string]string{}
	minor, from, at := "", 0, 0
	closeBlock := func() {
		if minor == "" {
			return
		}
		if _, seen := blocks[minor]; seen {
			panic("facts: the chart values of " + minor + " are not listed together")
		}
		blocks[minor] = chartValuesTSV[from:at]
	}
	for line := range strings.Lines(chartValuesTSV) {
		row, _, _ := strings.Cut(line, "\t")
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			row = ""
		}
		if row != minor {
			closeBlock()
			minor, from = row, at
		}
		at += len(line)
	}
	closeBlock()
	return blocks
})

// chartParsed holds each minor's rows once parsed, read without a lock by
// the fleet's parallel renders.
var chartParsed sync.Map // minor → map[string]string

// ChartValues returns the leaf keys of the minor's chart values.yaml
// (dotted paths, "settings.featureGates.nodeRepair") with their defaults
// as JSON; nil for a minor karpgen has no chart of. "0.37" is the last
// v1beta1 minor, for upgrades from it. A minor's rows are parsed when
// first asked for.
func ChartValues(minor string) map[string]string {
	if m, ok := chartParsed.Load(minor); ok {
		return m.(map[string]string)
	}
	var m map[string]string
	if block, ok := chartBlocks()[minor]; ok {
		m = make(map[string]string, strings.Count(block, "\n"))
		for line := range strings.Lines(block) {
			f := strings.SplitN(strings.TrimSuffix(line, "\n"), "\t", 3)
			if len(f) != 3 {
				panic("facts: a chart values row without three fields: " + line)
			}
			m[f[1]] = f[2]
		}
	}
	actual, _ := chartParsed.LoadOrStore(minor, m)
	return actual.(map[string]string)
}

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
