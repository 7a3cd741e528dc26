package drift

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// Requirement is one requirement of a NodePool's template.
type Requirement struct {
	Key, Operator string
	Values        []string
	MinValues     int
}

// absent stands for a node without the label; other for a value no
// requirement names.
const (
	absent = "\x00absent"
	other  = "\x00other"
)

// Narrowed describes the nodes the old requirements allowed and the new
// ones do not: Karpenter's requirements check drifts exactly those. It
// tries, per key, every value either side names, the neighbours of every
// Gt/Lt bound, a value neither names and no label at all: between them
// they tell apart every case the operators can.
func Narrowed(old, new []Requirement) []string {
	var out []string
	for _, key := range keysOf(old, new) {
		o, n := on(old, key), on(new, key)
		var lost []string
		otherLost := false
		for _, v := range candidates(slices.Concat(o, n)) {
			if !allows(o, v) || allows(n, v) {
				continue
			}
			switch v {
			case absent:
				lost = append(lost, "without the label")
			case other:
				otherLost = true
			default:
				lost = append(lost, v)
			}
		}
		if len(lost) == 0 && !otherLost {
			continue
		}
		if otherLost || !literalsOnly(o) {
			out = append(out, fmt.Sprintf("nodes whose %s is not %s", key, describe(n)))
			continue
		}
		out = append(out, fmt.Sprintf("nodes with %s %s", key, strings.Join(lost, ", ")))
	}
	return out
}

func on(reqs []Requirement, key string) []Requirement {
	var out []Requirement
	for _, r := range reqs {
		if r.Key == key {
			out = append(out, r)
		}
	}
	return out
}

// literalsOnly: the old requirements list the values they allow (In), so
// that what is lost can be named value by value.
func literalsOnly(reqs []Requirement) bool {
	for _, r := range reqs {
		if r.Operator != "In" {
			return false
		}
	}
	return len(reqs) > 0
}

func describe(reqs []Requirement) string {
	var parts []string
	for _, r := range reqs {
		switch r.Operator {
		case "In":
			parts = append(parts, "one of "+strings.Join(r.Values, ", "))
		case "NotIn":
			parts = append(parts, "none of "+strings.Join(r.Values, ", "))
		case "Gt":
			parts = append(parts, "greater than "+strings.Join(r.Values, ""))
		case "Lt":
			parts = append(parts, "less than "+strings.Join(r.Values, ""))
		case "Exists":
			parts = append(parts, "set")
		case "DoesNotExist":
			parts = append(parts, "unset")
		}
	}
	return strings.Join(parts, " and ")
}

func candidates(reqs []Requirement) []string {
	out := []string{absent, other, "-1000000000000", "1000000000000"}
	for _, r := range reqs {
		for _, v := range r.Values {
			out = append(out, v)
			if n, err := strconv.Atoi(v); err == nil && (r.Operator == "Gt" || r.Operator == "Lt") {
				out = append(out, strconv.Itoa(n-1), strconv.Itoa(n+1))
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// allows says whether a node whose label has value v (absent for none)
// satisfies every requirement.
func allows(reqs []Requirement, v string) bool {
	for _, r := range reqs {
		if !allowsOne(r, v) {
			return false
		}
	}
	return true
}

func allowsOne(r Requirement, v string) bool {
	has := v != absent
	switch r.Operator {
	case "In":
		return has && slices.Contains(r.Values, v)
	case "NotIn":
		return !has || !slices.Contains(r.Values, v)
	case "Exists":
		return has
	case "DoesNotExist":
		return !has
	case "Gt", "Lt":
		if !has || len(r.Values) != 1 {
			return false
		}
		n, err1 := strconv.Atoi(v)
		bound, err2 := strconv.Atoi(r.Values[0])
		if err1 != nil || err2 != nil {
			return false
		}
		if r.Operator == "Gt" {
			return n > bound
		}
		return n < bound
	}
	return true
}

// RequirementDelta is what changes of one requirement key: the operator
// on each side ("" where the key is absent; several joined by "+" where
// the key is given more than once) and the values each side names that
// the other does not.
type RequirementDelta struct {
	Key           string   `json:"key"`
	From          string   `json:"from"`
	To            string   `json:"to"`
	ValuesAdded   []string `json:"valuesAdded"`
	ValuesRemoved []string `json:"valuesRemoved"`
}

// RequirementDeltas lists, key by key in name order, what changes from
// old to new requirements; keys that stay as they are are left out.
func RequirementDeltas(old, new []Requirement) []RequirementDelta {
	var out []RequirementDelta
	for _, key := range keysOf(old, new) {
		o, n := on(old, key), on(new, key)
		d := RequirementDelta{Key: key, From: operators(o), To: operators(n),
			ValuesAdded: missing(values(n), values(o)), ValuesRemoved: missing(values(o), values(n))}
		if d.From == d.To && len(d.ValuesAdded) == 0 && len(d.ValuesRemoved) == 0 {
			continue
		}
		out = append(out, d)
	}
	return out
}

// keysOf are the keys either side's requirements name, sorted, once each.
func keysOf(old, new []Requirement) []string {
	keys := map[string]bool{}
	for _, r := range slices.Concat(old, new) {
		keys[r.Key] = true
	}
	return slices.Sorted(maps.Keys(keys))
}

// operators names the operators of a key's requirements, with their
// minValues.
func operators(rs []Requirement) string {
	var ops []string
	for _, r := range rs {
		op := r.Operator
		if r.MinValues > 0 {
			op += fmt.Sprintf(" (minValues %d)", r.MinValues)
		}
		ops = append(ops, op)
	}
	return strings.Join(ops, "+")
}

func values(rs []Requirement) []string {
	var out []string
	for _, r := range rs {
		out = append(out, r.Values...)
	}
	return out
}

// missing are the values of a that b does not hold, sorted, once each.
func missing(a, b []string) []string {
	out := []string{}
	for _, v := range a {
		if !slices.Contains(b, v) && !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	slices.Sort(out)
	return out
}
