package fleetdiff

import (
	"reflect"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/karpgen/karpgen/internal/util/keys"
)

// helmValues lists the Helm values that change, by dotted key.
func helmValues(base, head []byte) ([]Value, error) {
	out := []Value{}
	if string(base) == string(head) {
		return out, nil
	}
	var b, h map[string]any
	if err := yaml.Unmarshal(base, &b); err != nil {
		return nil, err
	}
	if err := yaml.Unmarshal(head, &h); err != nil {
		return nil, err
	}
	fb, fh := map[string]any{}, map[string]any{}
	flatten("", b, fb)
	flatten("", h, fh)
	for _, k := range keys.Union(fb, fh) {
		if !reflect.DeepEqual(fb[k], fh[k]) {
			out = append(out, Value{Key: k, From: fb[k], To: fh[k]})
		}
	}
	return out, nil
}

// flatten writes the leaves of nested maps by dotted key; lists are
// leaves.
func flatten(prefix string, v any, out map[string]any) {
	m, ok := v.(map[string]any)
	if !ok || len(m) == 0 {
		if prefix != "" {
			out[prefix] = v
		}
		return
	}
	for k, x := range m {
		key := k
		if prefix != "" {
			key = prefix + "." + k
		}
		if strings.Contains(k, ".") {
			key = prefix + "[" + k + "]"
		}
		flatten(key, x, out)
	}
}
