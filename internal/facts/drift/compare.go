package drift

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"

	"github.com/karpgen/karpgen/internal/util/lazyre"
)

// Effect is what Karpenter does with a change.
type Effect string

const (
	// InPlace changes apply to the object; existing nodes stay.
	InPlace Effect = "in-place"
	// Drift changes mark existing nodes drifted: they are replaced,
	// paced by the NodePool's disruption budgets.
	Drift Effect = "drift"
	// Recreate changes are refused by the API server: the object must be
	// deleted and created again, which replaces its nodes.
	Recreate Effect = "recreate"
)

// Rank orders effects from least to most disruptive.
func (e Effect) Rank() int {
	switch e {
	case Recreate:
		return 3
	case Drift:
		return 2
	case InPlace:
		return 1
	}
	return 0
}

// Change is one changed field of an object and what it does.
type Change struct {
	// Path is the field, e.g. spec.template.metadata.labels.team.
	Path string `json:"path"`
	// From and To are the values before and after; null when absent.
	From any `json:"from"`
	To   any `json:"to"`
	// Effect is what Karpenter does with the change.
	Effect Effect `json:"effect"`
	// Reason is the drift reason Karpenter reports for a drift, or the
	// CRD's message for a recreate.
	Reason string `json:"reason,omitempty"`
	// Why says how the rules decide it.
	Why string `json:"why"`
	// Requirements is, for a change of a NodePool's requirements, what
	// changes key by key.
	Requirements []RequirementDelta `json:"requirements,omitempty"`
	// Hours is, for a change of a NodePool's budgets, the hours of the
	// week whose limit moves (filled by fleetdiff, which reads budgets as
	// Karpenter combines them).
	Hours []HoursDelta `json:"hours,omitempty"`
}

// HoursDelta is a stretch of the week whose disruption limit a change of
// budgets moves: for the reasons, on the days, in the hours of the zone,
// from one limit to another ("10%", "0", "no limit").
type HoursDelta struct {
	Reasons []string `json:"reasons"`
	Days    string   `json:"days"`
	Hours   string   `json:"hours"`
	Zone    string   `json:"zone"`
	From    string   `json:"from"`
	To      string   `json:"to"`
}

// dynamic are the drift checks that read a field tagged hash:"ignore":
// a change to it drifts the nodes the check finds out of date.
var dynamic = map[string]struct{ reason, nodes string }{
	"spec.amiSelectorTerms":                 {"AMIDrift", "nodes whose image the new terms do not select"},
	"spec.subnetSelectorTerms":              {"SubnetDrift", "nodes in subnets the new terms do not select"},
	"spec.securityGroupSelectorTerms":       {"SecurityGroupDrift", "nodes whose security groups are not those the new terms select"},
	"spec.capacityReservationSelectorTerms": {"CapacityReservationDrift", "nodes in capacity reservations the new terms do not select"},
	"spec.placementGroupSelector":           {"PlacementGroupDrift", "nodes outside the placement group the new selector names"},
}

// hashInputs are the hash inputs besides the fields the table knows, by
// the field they stand for.
var hashInputs = map[string]string{
	"in.AMIFamily()":           "spec.amiFamily",
	"in.Spec.Kubelet.String()": "spec.kubelet",
	"lo.FromPtr(caBundle)":     "", // the cluster's CA, not a field of the profile
}

// roots are the parts of each kind the hash covers.
var roots = map[string]string{NodePool: "spec.template", EC2NodeClass: "spec"}

// Compare lists what changes from old to new, an object of the kind (as
// decoded from YAML), with the effect of each change by the rules of r,
// the release that runs once the change is applied. from are the rules
// of the release that made the existing nodes (nil: the same); when
// the kind's hash version differs between them, Karpenter gives existing
// nodes the new hash instead of comparing it, so a hashed field drifts
// nothing. Both must be the same object (kind and name); nil stands for
// an absent one.
func (r *Rules) Compare(from *Rules, kind string, old, new map[string]any) ([]Change, error) {
	k, ok := r.Kinds[kind]
	if !ok {
		return nil, fmt.Errorf("the drift table of %s has no %s", r.Release, kind)
	}
	c := comparison{rules: r, kind: kind, k: k, old: old, new: new, fromVersion: k.HashVersion}
	if from != nil {
		if fk, ok := from.Kinds[kind]; ok {
			c.fromVersion = fk.HashVersion
		}
	}
	c.walk(nil, old, new)
	if err := c.transitions(); err != nil {
		return nil, err
	}
	return c.out, nil
}

type comparison struct {
	rules    *Rules
	kind     string
	k        *KindRules
	old, new map[string]any
	out      []Change
	// fromVersion is the hash version the existing nodes carry.
	fromVersion string
}

// rehashed says the hash version changes with the change: the static
// check compares nothing, and existing nodes take the new hash.
func (c *comparison) rehashed(ch *Change) bool {
	if c.fromVersion == c.k.HashVersion {
		return false
	}
	ch.Effect, ch.Reason = InPlace, ""
	ch.Why = fmt.Sprintf("enters the %s hash, but its version changes (%s to %s): Karpenter gives existing nodes the new hash instead of drifting them",
		c.kind, c.fromVersion, c.k.HashVersion)
	return true
}

// walk compares a and b at path, entering maps so that a change names the
// key that changed; lists are compared whole.
func (c *comparison) walk(path []string, a, b any) {
	if reflect.DeepEqual(a, b) {
		return
	}
	am, aok := a.(map[string]any)
	bm, bok := b.(map[string]any)
	if aok && bok {
		keys := slices.Sorted(maps.Keys(am))
		for k := range bm {
			if _, ok := am[k]; !ok {
				keys = append(keys, k)
			}
		}
		slices.Sort(keys)
		for _, k := range keys {
			c.walk(append(slices.Clip(path), k), am[k], bm[k])
		}
		return
	}
	c.out = append(c.out, c.classify(path, a, b))
}

// Display writes a path with the keys that are not plain names quoted, as
// in labels["example.com/team"].
func Display(path []string) string {
	var b strings.Builder
	for i, p := range path {
		if plainKey().MatchString(p) {
			if i > 0 {
				b.WriteByte('.')
			}
			b.WriteString(p)
		} else {
			fmt.Fprintf(&b, "[%q]", p)
		}
	}
	return b.String()
}

var plainKey = lazyre.New(`^[A-Za-z_][A-Za-z0-9_]*$`)

// field is the longest table path that starts path, and whether it enters
// the hash.
func (c *comparison) field(path []string) (string, bool, bool) {
	for i := len(path); i > 0; i-- {
		p := strings.Join(path[:i], ".")
		if hashed, ok := c.k.Fields[p]; ok {
			return p, hashed, true
		}
	}
	return "", false, false
}

func (c *comparison) classify(path []string, a, b any) Change {
	ch := Change{Path: Display(path), From: a, To: b}
	dotted := strings.Join(path, ".")
	root := roots[c.kind]
	if dotted != root && !strings.HasPrefix(dotted, root+".") {
		ch.Effect = InPlace
		ch.Why = outside(c.kind, path, b)
		return ch
	}
	f, hashed, known := c.field(path)
	staticReason := "NodePoolDrifted"
	if c.kind == EC2NodeClass {
		staticReason = "NodeClassDrift"
	}
	switch {
	case (!known || hashed) && c.rehashed(&ch):
	case !known:
		ch.Effect, ch.Reason = Drift, staticReason
		ch.Why = fmt.Sprintf("a field the %s table does not know: taken as entering the %s hash", c.rules.Release, c.kind)
	case hashed:
		ch.Effect, ch.Reason = Drift, staticReason
		ch.Why = fmt.Sprintf("enters the %s hash (%s): every node made from it is replaced", c.kind, c.k.HashVersion)
	case f == "spec.template.spec.requirements" || strings.HasPrefix(f, "spec.template.spec.requirements."):
		old, new := c.requirements(c.old), c.requirements(c.new)
		ch.Requirements = RequirementDeltas(old, new)
		narrowed := Narrowed(old, new)
		if len(narrowed) == 0 {
			ch.Effect = InPlace
			ch.Why = "requirements stay out of the hash, and every node the old ones allowed still satisfies the new ones"
		} else {
			ch.Effect, ch.Reason = Drift, "RequirementsDrifted"
			ch.Why = "requirements stay out of the hash, but these nodes no longer satisfy them: " + strings.Join(narrowed, "; ")
		}
	default:
		c.ignored(&ch, f, staticReason)
	}
	return ch
}

// ignored decides a change to a field tagged hash:"ignore": a drift check
// of its own, a hash input that stands for it, or no effect on nodes.
func (c *comparison) ignored(ch *Change, f, staticReason string) {
	for _, in := range c.k.HashInputs {
		if hashInputs[in] != f || f == "" {
			continue
		}
		if f == "spec.amiFamily" {
			if AMIFamily(c.old) == AMIFamily(c.new) {
				break // the AMI selection decides, below
			}
			if c.rehashed(ch) {
				return
			}
			ch.Effect, ch.Reason = Drift, staticReason
			ch.Why = fmt.Sprintf("the AMI family the hash takes (%s) changes from %s to %s: every node is replaced", in, AMIFamily(c.old), AMIFamily(c.new))
			return
		}
		if c.rehashed(ch) {
			return
		}
		ch.Effect, ch.Reason = Drift, staticReason
		ch.Why = fmt.Sprintf("tagged hash:\"ignore\" but hashed as %s (%s): every node made from it is replaced", in, c.k.HashVersion)
		return
	}
	top := f
	if parts := strings.SplitN(f, ".", 3); len(parts) == 3 {
		top = parts[0] + "." + parts[1]
	}
	if d, ok := dynamic[top]; ok && c.k.Reasons[d.reason] {
		ch.Effect, ch.Reason = Drift, d.reason
		ch.Why = fmt.Sprintf("outside the hash, but the %s check replaces %s", d.reason, d.nodes)
		return
	}
	if f == "spec.amiFamily" {
		ch.Effect = InPlace
		ch.Why = fmt.Sprintf("the AMI family it resolves to stays %s", AMIFamily(c.new))
		return
	}
	ch.Effect = InPlace
	ch.Why = "tagged hash:\"ignore\" and read by no drift check: only nodes launched from now on get it"
}

// outside explains a change outside the hashed part of the object.
func outside(kind string, path []string, to any) string {
	if len(path) == 0 {
		return "the object changes"
	}
	if path[0] == "metadata" {
		return "object metadata: the nodes do not carry it"
	}
	if kind == NodePool && len(path) > 1 {
		switch path[1] {
		case "limits":
			return "limits bound what the pool may launch from now on; no node is replaced"
		case "disruption":
			return "disruption settings pace replacements; no node is replaced for them"
		case "weight":
			return "the weight orders pools for new launches"
		case "replicas":
			if to == nil {
				return "the pool stops being static"
			}
			return fmt.Sprintf("a static pool scales to %v nodes: nodes are added or removed, not replaced", to)
		}
	}
	return "outside the part of the object the hash covers"
}

// requirements are a NodePool's template requirements.
func (c *comparison) requirements(obj map[string]any) []Requirement {
	var out []Requirement
	list, _ := Dig(obj, "spec", "template", "spec", "requirements").([]any)
	for _, item := range list {
		m, _ := item.(map[string]any)
		r := Requirement{}
		r.Key, _ = m["key"].(string)
		r.Operator, _ = m["operator"].(string)
		vals, _ := m["values"].([]any)
		for _, v := range vals {
			r.Values = append(r.Values, fmt.Sprint(v))
		}
		switch n := m["minValues"].(type) {
		case int:
			r.MinValues = n
		case int64:
			r.MinValues = int(n)
		case float64:
			r.MinValues = int(n)
		}
		out = append(out, r)
	}
	return out
}

// Dig walks an object decoded from YAML or JSON by key; nil when a key
// is absent.
func Dig(v any, keys ...string) any {
	for _, k := range keys {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[k]
	}
	return v
}

// AMIFamily is the family an EC2NodeClass resolves to, as the hash takes
// it: amiFamily when set, else the family of the alias, else Custom.
func AMIFamily(nodeClass map[string]any) string {
	if f, ok := Dig(nodeClass, "spec", "amiFamily").(string); ok && f != "" {
		return f
	}
	terms, _ := Dig(nodeClass, "spec", "amiSelectorTerms").([]any)
	for _, t := range terms {
		if alias, ok := Dig(t, "alias").(string); ok {
			if f, ok := AliasFamily(alias); ok {
				return f
			}
		}
	}
	return "Custom"
}

// AliasFamily is the amiFamily an AMI alias ("al2023@latest") stands
// for, and whether the alias names a family.
func AliasFamily(alias string) (string, bool) {
	name, _, _ := strings.Cut(alias, "@")
	f, ok := aliasFamilies[name]
	return f, ok
}

var aliasFamilies = map[string]string{
	"al2": "AL2", "al2023": "AL2023", "bottlerocket": "Bottlerocket",
	"windows2019": "Windows2019", "windows2022": "Windows2022", "windows2025": "Windows2025",
}
