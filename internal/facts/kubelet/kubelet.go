// Package kubelet holds an EC2NodeClass's kubelet configuration to the
// upstream KubeletConfiguration, as Karpenter 1.15 and later do: their
// EC2NodeClass takes kubelet as an open map that the API server does not
// check, and Karpenter decodes it strictly into k8s.io/kubelet's type
// when it reconciles the class, so an unknown or mistyped field stops
// every launch (ValidationSucceeded=False) instead of failing the apply.
// data/fields.tsv is that type's field list (hack/kubeletfields, with
// data/SOURCE).
package kubelet

//go:generate go run ../../../hack/kubeletfields

import (
	_ "embed"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/karpgen/karpgen/internal/diag"
)

var (
	//go:embed data/fields.tsv
	fieldsTSV string
	//go:embed data/SOURCE
	sourceFile string

	load   sync.Once
	fields map[string]string // JSON path ("a.b", "a[].b") -> kind
)

// OwnedByKarpenter are the fields Karpenter sets itself and refuses in a
// class (its bootstrap would overwrite them), with why.
var OwnedByKarpenter = map[string]string{
	"registerWithTaints": "Karpenter sets it from the NodeClaim's taints, so that nodes register unschedulable until they are ready",
}

// Subset are the kubelet fields the EC2NodeClass takes before 1.15, when
// its CRD lists them.
func Subset() []string {
	return []string{"clusterDNS", "maxPods", "podsPerCore", "systemReserved", "kubeReserved", "evictionHard", "evictionSoft",
		"evictionSoftGracePeriod", "evictionMaxPodGracePeriod", "imageGCHighThresholdPercent", "imageGCLowThresholdPercent", "cpuCFSQuota"}
}

// Source names the module the field list comes from ("k8s.io/kubelet v0.37.0").
func Source() string {
	if i := strings.Index(sourceFile, "from module "); i >= 0 {
		rest := sourceFile[i+len("from module "):]
		if mod, _, ok := strings.Cut(rest, " zip"); ok {
			return strings.Replace(mod, "@", " ", 1)
		}
	}
	return "k8s.io/kubelet"
}

// Fields returns the field list: JSON path to kind.
func Fields() map[string]string {
	load.Do(func() {
		fields = map[string]string{}
		for _, line := range strings.Split(fieldsTSV, "\n") {
			path, kind, ok := strings.Cut(line, "\t")
			if ok && !strings.HasPrefix(line, "#") {
				fields[path] = kind
			}
		}
	})
	return fields
}

// Problem is a field Karpenter would refuse, at its path below kubelet
// (strings are fields, ints list indices).
type Problem struct {
	Path          []any
	Message, Hint string
}

// Check holds a kubelet map to the upstream type. maxPods given as a
// string is an expression and is left to the caller.
func Check(cfg map[string]any) []Problem {
	var out []Problem
	top := topLevel()
	for _, name := range slices.Sorted(maps.Keys(cfg)) {
		v := cfg[name]
		if why, owned := OwnedByKarpenter[name]; owned {
			out = append(out, Problem{[]any{name}, fmt.Sprintf("kubelet field %q cannot be set: %s", name, why), "remove it"})
			continue
		}
		if _, isString := v.(string); name == "maxPods" && isString {
			continue
		}
		kind, ok := Fields()[name]
		if !ok {
			hint := "see the fields of KubeletConfiguration in " + Source()
			if s := diag.Closest(name, top); s != "" {
				hint = fmt.Sprintf("did you mean %q?", s)
			}
			out = append(out, Problem{[]any{name}, fmt.Sprintf("kubelet field %q is not a field of KubeletConfiguration (%s)", name, Source()), hint})
			continue
		}
		out = append(out, checkValue([]any{name}, name, kind, v)...)
	}
	return out
}

func topLevel() []string {
	var out []string
	for p := range Fields() {
		if !strings.ContainsAny(p, ".[") {
			out = append(out, p)
		}
	}
	slices.Sort(out)
	return out
}

// checkValue holds one value to its kind; schema is its path in the
// field list, path where it sits.
func checkValue(path []any, schema, kind string, v any) []Problem {
	bad := func(want string) []Problem {
		return []Problem{{path, fmt.Sprintf("kubelet %s is %s, not %s (%s)", dotted(path), describe(v), want, Source()),
			"give " + want}}
	}
	switch {
	case strings.HasPrefix(kind, "[]"):
		list, ok := v.([]any)
		if !ok {
			return bad("a list")
		}
		var out []Problem
		for i, x := range list {
			out = append(out, checkValue(append(slices.Clone(path), i), schema+"[]", kind[2:], x)...)
		}
		return out
	case strings.HasPrefix(kind, "map[string]"):
		m, ok := v.(map[string]any)
		if !ok {
			return bad("a map")
		}
		var out []Problem
		for _, k := range slices.Sorted(maps.Keys(m)) {
			out = append(out, checkValue(append(slices.Clone(path), k), schema+".*", strings.TrimPrefix(kind, "map[string]"), m[k])...)
		}
		return out
	}
	switch kind {
	case "bool":
		if _, ok := v.(bool); !ok {
			return bad("true or false")
		}
	case "integer":
		if f, ok := number(v); !ok || f != math.Trunc(f) {
			return bad("a whole number")
		}
	case "number":
		if _, ok := number(v); !ok {
			return bad("a number")
		}
	case "string":
		if _, ok := v.(string); !ok {
			return bad("a string")
		}
	case "duration":
		s, ok := v.(string)
		if !ok {
			return bad(`a duration such as "30s"`)
		}
		if _, err := time.ParseDuration(s); err != nil {
			return bad(`a duration such as "30s"`)
		}
	case "open object":
		if _, ok := v.(map[string]any); !ok && !strings.HasSuffix(schema, "[]") {
			return bad("an object")
		}
	case "object":
		m, ok := v.(map[string]any)
		if !ok {
			return bad("an object")
		}
		var out []Problem
		for _, k := range slices.Sorted(maps.Keys(m)) {
			sub := schema + "." + k
			subKind, ok := Fields()[sub]
			if !ok {
				out = append(out, Problem{append(slices.Clone(path), k), fmt.Sprintf("kubelet %s has no field %q (%s)", dotted(path), k, Source()),
					"fields: " + strings.Join(children(schema), ", ")})
				continue
			}
			out = append(out, checkValue(append(slices.Clone(path), k), sub, subKind, m[k])...)
		}
		return out
	}
	return nil
}

// children lists the fields of an object of the list.
func children(schema string) []string {
	var out []string
	for p := range Fields() {
		if rest, ok := strings.CutPrefix(p, schema+"."); ok && !strings.ContainsAny(rest, ".[") {
			out = append(out, rest)
		}
	}
	slices.Sort(out)
	return out
}

func number(v any) (float64, bool) {
	switch n := v.(type) {
	case float64:
		return n, true
	case int:
		return float64(n), true
	case int64:
		return float64(n), true
	}
	return 0, false
}

func describe(v any) string {
	switch v := v.(type) {
	case string:
		return fmt.Sprintf("%q", v)
	case nil:
		return "null"
	case map[string]any:
		return "an object"
	case []any:
		return "a list"
	}
	return fmt.Sprint(v)
}

func dotted(path []any) string {
	var b strings.Builder
	for _, p := range path {
		switch p := p.(type) {
		case int:
			fmt.Fprintf(&b, "[%d]", p)
		default:
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			fmt.Fprint(&b, p)
		}
	}
	return b.String()
}
