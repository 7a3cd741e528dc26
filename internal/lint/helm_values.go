package lint

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/karpgen/karpgen/internal/diag"
	"github.com/karpgen/karpgen/internal/facts"
	"github.com/karpgen/karpgen/internal/util/boundyaml"
)

// movedValues are keys of older charts and where they went: "" when
// nothing replaces them.
var movedValues = map[string]string{
	"settings.aws.clusterName":                "settings.clusterName",
	"settings.aws.clusterEndpoint":            "settings.clusterEndpoint",
	"settings.aws.interruptionQueueName":      "settings.interruptionQueue",
	"settings.aws.vmMemoryOverheadPercent":    "settings.vmMemoryOverheadPercent",
	"settings.aws.reservedENIs":               "settings.reservedENIs",
	"settings.aws.isolatedVPC":                "settings.isolatedVPC",
	"settings.aws.defaultInstanceProfile":     "",
	"settings.aws.enablePodENI":               "",
	"settings.aws.enableENILimitedPodDensity": "",
	"settings.featureGates.drift":             "",
	"settings.assumeRoleARN":                  "",
	"settings.assumeRoleDuration":             "",
}

// movedWhy says why a key without a replacement is gone.
var movedWhy = map[string]string{
	"settings.featureGates.drift":         "drift is always on in v1: hold it back with a NodePool budget {nodes: \"0\", reasons: [\"Drifted\"]}",
	"settings.aws.defaultInstanceProfile": "each EC2NodeClass names its role",
	"settings.assumeRoleARN":              "the controller's own role is used",
	"settings.assumeRoleDuration":         "the controller's own role is used",
}

// CheckValues checks a Helm values file in use against the chart values
// of a Karpenter minor: keys the chart does not have (with the key to use
// instead when one moved), and values of the wrong type. Findings carry
// the file's positions.
func CheckValues(file string, data []byte, minor string) []diag.Finding {
	chart := facts.ChartValues(minor)
	if chart == nil {
		return []diag.Finding{{Rule: "values/unknown-key", Severity: diag.Error, Pos: diag.Pos{File: file, Line: 1, Col: 1},
			Message: fmt.Sprintf("karpgen has no chart of Karpenter %s", minor)}}
	}
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return []diag.Finding{{Rule: "values/syntax", Severity: diag.Error, Pos: diag.Pos{File: file, Line: 1, Col: 1},
			Message: "the values are not YAML: " + strings.TrimPrefix(err.Error(), "yaml: ")}}
	}
	var strict *boundyaml.StrictError
	if err := boundyaml.Strict(file, data); errors.As(err, &strict) {
		return []diag.Finding{{Rule: "values/syntax", Severity: diag.Error, Pos: diag.Pos{File: file, Line: strict.Line, Col: strict.Col},
			Message: strict.Message, Hint: "give each key once, as plain YAML"}}
	}
	if len(root.Content) == 0 {
		return nil
	}
	var out []diag.Finding
	var walk func(prefix string, n *yaml.Node)
	walk = func(prefix string, n *yaml.Node) {
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if v.Kind == yaml.AliasNode && v.Alias != nil {
				v = v.Alias
			}
			path := k.Value
			if prefix != "" {
				path = prefix + "." + k.Value
			}
			pos := diag.Pos{File: file, Line: k.Line, Col: k.Column}
			def, known := chart[path]
			switch {
			case known:
				if why := wrongType(def, v); why != "" {
					out = append(out, diag.Finding{Rule: "values/type", Severity: diag.Error, Pos: pos, Path: path,
						Message: fmt.Sprintf("%s %s in the Karpenter %s chart, not %s", path, why, minor, givenText(v)),
						Hint:    fmt.Sprintf("the chart's default is %s", def)})
				}
			case facts.Parent(chart, path) != "" && !isMapDefault(chart[facts.Parent(chart, path)]):
				// Below a leaf that is not a map: the chart takes a scalar
				// or a list there.
				parent := facts.Parent(chart, path)
				out = append(out, diag.Finding{Rule: "values/type", Severity: diag.Error, Pos: pos, Path: path,
					Message: fmt.Sprintf("%s is not a map in the Karpenter %s chart, so %s means nothing", parent, minor, path)})
			case facts.Parent(chart, path) != "" || freeForm(prefix):
				// A key of a free-form map (annotations, nodeSelector).
			case v.Kind == yaml.MappingNode && (hasPrefix(chart, path+".") || movedPrefix(path+".")):
				walk(path, v)
			case hasPrefix(chart, path+"."):
				// A map of the chart given as a scalar or a list.
				out = append(out, diag.Finding{Rule: "values/type", Severity: diag.Error, Pos: pos, Path: path,
					Message: fmt.Sprintf("%s is a map in the Karpenter %s chart, not %s", path, minor, givenText(v)),
					Hint:    "write it as a map of keys, e.g. " + path + ": {key: value}"})
			default:
				out = append(out, unknownValue(pos, path, minor, chart))
			}
		}
	}
	walk("", root.Content[0])
	return out
}

func unknownValue(pos diag.Pos, path, minor string, chart map[string]string) diag.Finding {
	f := diag.Finding{Rule: "values/unknown-key", Severity: diag.Error, Pos: pos, Path: path,
		Message: fmt.Sprintf("%s is not a value of the Karpenter %s chart: the chart ignores it", path, minor)}
	to, moved := movedValues[path]
	switch {
	case moved && to != "":
		f.Rule, f.Hint = "values/removed-key", "use "+to
	case moved:
		f.Rule, f.Hint = "values/removed-key", "drop it: "+orText(movedWhy[path], "it has no v1 equivalent")
	case strings.HasPrefix(path, "webhook."):
		f.Rule, f.Hint = "values/removed-key", "drop it: the conversion webhooks are gone since 1.1"
	case strings.HasPrefix(path, "logConfig."):
		f.Rule, f.Hint = "values/removed-key", "use logLevel (and logOutputPaths, logErrorOutputPaths)"
	case strings.HasPrefix(path, "settings.aws."):
		// A hint never names a key vet would refuse.
		to := "settings." + strings.TrimPrefix(path, "settings.aws.")
		f.Rule, f.Hint = "values/removed-key", "drop it: settings.aws.* went away in v1, and this chart has no "+to
		if _, ok := chart[to]; ok {
			f.Hint = "settings.aws.* moved to settings.*: use " + to
		}
	default:
		// The keys the chart has at the same place.
		parent, last := "", path
		if i := strings.LastIndex(path, "."); i >= 0 {
			parent, last = path[:i+1], path[i+1:]
		}
		var siblings []string
		for _, k := range slices.Sorted(maps.Keys(chart)) {
			if rest, ok := strings.CutPrefix(k, parent); ok {
				name, _, _ := strings.Cut(rest, ".")
				siblings = append(siblings, name)
			}
		}
		// The same key elsewhere in the chart (controller.replicas for
		// replicas) says more than a near spelling at this place.
		var same []string
		for _, k := range slices.Sorted(maps.Keys(chart)) {
			// The key up to the segment named last, wherever it is.
			if i := strings.Index("."+k+".", "."+last+"."); i >= 0 && !slices.Contains(same, k[:i+len(last)]) {
				same = append(same, k[:i+len(last)])
			}
		}
		switch {
		case len(same) == 1:
			f.Hint = fmt.Sprintf("did you mean %s?", same[0])
		case diag.Closest(last, siblings) != "":
			f.Hint = fmt.Sprintf("did you mean %s%s?", parent, diag.Closest(last, siblings))
		default:
			f.Hint = "the chart's values are listed in its values.yaml of that version"
		}
	}
	return f
}

// givenText names a value of a values file for a message.
func givenText(v *yaml.Node) string {
	if v.Kind != yaml.ScalarNode {
		return map[yaml.Kind]string{yaml.MappingNode: "a map", yaml.SequenceNode: "a list"}[v.Kind]
	}
	return fmt.Sprintf("%q", v.Value)
}

// movedPrefix reports a folder of keys that moved.
func movedPrefix(prefix string) bool {
	if prefix == "webhook." || prefix == "logConfig." || strings.HasPrefix(prefix, "settings.aws.") {
		return true
	}
	for k := range movedValues {
		if strings.HasPrefix(k, prefix) {
			return true
		}
	}
	return false
}

// freeForm reports a map whose keys are the user's (labels, annotations,
// node selectors).
func freeForm(path string) bool {
	last := path[strings.LastIndex(path, ".")+1:]
	switch last {
	case "nodeSelector", "annotations", "labels", "podAnnotations", "podLabels", "additionalAnnotations", "additionalLabels":
		return true
	}
	return false
}

func orText(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

func hasPrefix(chart map[string]string, prefix string) bool {
	for k := range chart {
		if strings.HasPrefix(k, prefix) {
			return true
		}
	}
	return false
}

func isMapDefault(def string) bool { return strings.HasPrefix(def, "{") }

// wrongType says how a value's YAML kind differs from the chart
// default's JSON type, or "".
func wrongType(def string, v *yaml.Node) string {
	var d any
	if err := json.Unmarshal([]byte(def), &d); err != nil || d == nil {
		return ""
	}
	if v.Kind == yaml.ScalarNode && v.Tag == "!!null" {
		return ""
	}
	want := ""
	switch d.(type) {
	case bool:
		want = "!!bool"
	case float64:
		if v.Kind == yaml.ScalarNode && (v.Tag == "!!int" || v.Tag == "!!float") {
			return ""
		}
		want = "!!int"
	case string:
		if v.Kind == yaml.ScalarNode {
			return "" // Helm templates quote what they need
		}
		want = "!!str"
	case []any:
		if v.Kind == yaml.SequenceNode {
			return ""
		}
		return "is a list"
	case map[string]any:
		if v.Kind == yaml.MappingNode {
			return ""
		}
		return "is a map"
	}
	if v.Kind == yaml.ScalarNode && v.Tag == want {
		return ""
	}
	names := map[string]string{"!!bool": "a boolean", "!!int": "a number", "!!str": "a string"}
	return "is " + names[want]
}
