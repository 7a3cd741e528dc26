package iampolicy

// What the upgrade planner and the doctor both do with IAM policy
// documents: compare them as JSON values, and read and compare the string
// lists IAM writes as a string or a list.

import (
	"encoding/json"
	"fmt"
	"slices"
)

// Normalize is v as plain JSON values, so that documents built in Go and
// documents read from JSON compare equal when they say the same.
func Normalize(v any) any {
	data, _ := json.Marshal(v)
	var out any
	json.Unmarshal(data, &out)
	return out
}

// Strings reads a field IAM writes as one string or a list of them
// (Action, Resource, a principal).
func Strings(v any) []string {
	switch v := v.(type) {
	case string:
		return []string{v}
	case []string:
		return v
	case []any:
		out := make([]string, 0, len(v))
		for _, x := range v {
			out = append(out, fmt.Sprint(x))
		}
		return out
	}
	return nil
}

// Diff returns what b has that a has not, and what a has that b has not,
// each sorted.
func Diff(a, b []string) (added, removed []string) {
	for _, x := range b {
		if !slices.Contains(a, x) {
			added = append(added, x)
		}
	}
	for _, x := range a {
		if !slices.Contains(b, x) {
			removed = append(removed, x)
		}
	}
	slices.Sort(added)
	slices.Sort(removed)
	return added, removed
}
