package lint

import (
	"strconv"
	"strings"

	"github.com/karpgen/karpgen/internal/util/lazyre"
)

var (
	identRE        = lazyre.New(`^[A-Za-z_$][A-Za-z0-9_$]*$`)
	dns1123Label   = lazyre.New(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`)
	dns1123Sub     = lazyre.New(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`)
	labelNameRE    = lazyre.New(`^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$`)
	clusterNameRE  = lazyre.New(`^[0-9A-Za-z][A-Za-z0-9_-]*$`)
	quantityRE     = lazyre.New(`^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$`)
	budgetNodesRE  = lazyre.New(`^((100|[0-9]{1,2})%|[0-9]+)$`)
	volumeSizeRE   = lazyre.New(`^((?:[1-9][0-9]{0,3}|[1-4][0-9]{4}|[5][0-8][0-9]{3}|59000)Gi|(?:[1-9][0-9]{0,3}|[1-5][0-9]{4}|[6][0-3][0-9]{3}|64000)G|([1-9]||[1-5][0-7]|58)Ti|([1-9]||[1-5][0-9]|6[0-3]|64)T)$`)
	amiIDRE        = lazyre.New(`^ami-[0-9a-z]+$`)
	aliasVersionRE = lazyre.New(`^(latest|v[0-9]+(\.[0-9]+)*|v?[0-9]{8}(-[0-9]+)?|[0-9]+(\.[0-9]+)*)$`)
)

// field renders a CUE path selector for a map key.
func field(name string) string {
	if identRE().MatchString(name) && !strings.HasPrefix(name, "_") && !strings.HasPrefix(name, "#") {
		return name
	}
	return strconv.Quote(name)
}

// at joins path parts; ints become list indices.
func at(parts ...any) string {
	var b strings.Builder
	for _, p := range parts {
		switch p := p.(type) {
		case int:
			b.WriteString("[" + strconv.Itoa(p) + "]")
		case string:
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			b.WriteString(p)
		}
	}
	return b.String()
}

// qualifiedName checks a Kubernetes label or taint key; it returns what is
// wrong, or "".
func qualifiedName(key string) string {
	prefix, name, hasPrefix := strings.Cut(key, "/")
	if !hasPrefix {
		name, prefix = prefix, ""
	}
	switch {
	case strings.Count(key, "/") > 1:
		return "has more than one '/'"
	case hasPrefix && (prefix == "" || len(prefix) > 253 || !dns1123Sub().MatchString(prefix)):
		return "has a prefix that is not a DNS subdomain (lower case, at most 253 characters)"
	case name == "" || len(name) > 63:
		return "needs a name of 1 to 63 characters"
	case !labelNameRE().MatchString(name):
		return "must start and end with a letter or digit and hold only letters, digits, '-', '_' and '.'"
	}
	return ""
}

// labelValue checks a Kubernetes label value.
func labelValue(v string) string {
	switch {
	case len(v) > 63:
		return "is longer than 63 characters"
	case v != "" && !labelNameRE().MatchString(v):
		return "must start and end with a letter or digit and hold only letters, digits, '-', '_' and '.'"
	}
	return ""
}

// domain returns the prefix of a label key ("" when it has none).
func domain(key string) string {
	prefix, _, ok := strings.Cut(key, "/")
	if !ok {
		return ""
	}
	return prefix
}

func quantityString(v any) (string, bool) {
	switch v := v.(type) {
	case string:
		return v, true
	case int, int64, float64:
		return strconv.FormatFloat(toFloat(v), 'f', -1, 64), true
	}
	return "", false
}

func toFloat(v any) float64 {
	switch v := v.(type) {
	case int:
		return float64(v)
	case int64:
		return float64(v)
	case float64:
		return v
	}
	return 0
}

// quantityPositive reports whether a valid quantity is greater than zero.
func quantityPositive(s string) bool {
	m := quantityRE().FindStringSubmatch(s)
	if m == nil {
		return false
	}
	f, err := strconv.ParseFloat(m[1], 64)
	return err == nil && f > 0
}
