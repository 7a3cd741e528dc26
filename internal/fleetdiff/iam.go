package fleetdiff

import (
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"

	"github.com/karpgen/karpgen/internal/model"
	"github.com/karpgen/karpgen/internal/util/keys"
)

// document is an IAM policy document as karpgen writes it.
type document struct {
	Statement []map[string]any `json:"Statement"`
}

// policies compares the IAM policy documents of two bundles: actions
// granted and taken away, and statements added, removed or changed.
func policies(base, head map[string][]byte) []Policy {
	out := []Policy{}
	for _, p := range keys.Union(base, head) {
		if string(base[p]) == string(head[p]) || !strings.HasPrefix(p, model.DirIAM) || !strings.HasSuffix(p, ".json") {
			continue
		}
		b, inBase := statements(base[p])
		h, inHead := statements(head[p])
		if !inBase && !inHead {
			continue // JSON of IAM that is no policy document: a file diff
		}
		pol := Policy{File: p, Status: status(base[p] != nil, head[p] != nil), Trust: strings.Contains(p, "trust-policy"), Statements: []Statement{}}
		pol.ActionsAdded, pol.ActionsRemoved = gainedLost(actions(b), actions(h))
		for _, sid := range keys.Union(b, h) {
			st := Statement{Sid: sid, Status: status(b[sid] != nil, h[sid] != nil), Fields: []string{}, ResourcesAdded: []string{}, ResourcesRemoved: []string{}}
			if st.Status == "changed" {
				for _, f := range keys.Union(b[sid], h[sid]) {
					if f != "Sid" && !reflect.DeepEqual(b[sid][f], h[sid][f]) {
						st.Fields = append(st.Fields, f)
					}
				}
				if len(st.Fields) == 0 {
					continue
				}
				st.ResourcesAdded, st.ResourcesRemoved = gainedLost(list(b[sid]["Resource"]), list(h[sid]["Resource"]))
			}
			pol.Statements = append(pol.Statements, st)
		}
		out = append(out, pol)
	}
	return out
}

// statements are a document's statements by Sid (by position when a
// statement has none), and whether the text is a policy document at all.
func statements(text []byte) (map[string]map[string]any, bool) {
	out := map[string]map[string]any{}
	var d document
	if text == nil || json.Unmarshal(text, &d) != nil || len(d.Statement) == 0 {
		return out, false
	}
	for i, s := range d.Statement {
		sid, _ := s["Sid"].(string)
		if sid == "" {
			sid = fmt.Sprintf("#%d", i+1)
		}
		out[sid] = s
	}
	return out, true
}

// Statements are the statements, by Sid, of the IAM policy documents
// among files whose path begins with prefix: several documents read as
// one policy (the parts of a controller policy split in several).
func Statements(files map[string][]byte, prefix string) map[string]map[string]any {
	out := map[string]map[string]any{}
	for _, p := range slices.Sorted(maps.Keys(files)) {
		if !strings.HasPrefix(p, prefix) || !strings.HasSuffix(p, ".json") {
			continue
		}
		sts, _ := statements(files[p])
		maps.Copy(out, sts)
	}
	return out
}

// gainedLost are the members after has that before has not, and the
// other way round, in order.
func gainedLost(before, after map[string]bool) (gained, lost []string) {
	gained, lost = []string{}, []string{}
	for _, k := range slices.Sorted(maps.Keys(after)) {
		if !before[k] {
			gained = append(gained, k)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(before)) {
		if !after[k] {
			lost = append(lost, k)
		}
	}
	return gained, lost
}

// list reads a string or a list of strings as a set.
func list(v any) map[string]bool {
	out := map[string]bool{}
	switch v := v.(type) {
	case string:
		out[v] = true
	case []any:
		for _, x := range v {
			out[fmt.Sprint(x)] = true
		}
	}
	return out
}

// actions are the actions allowed (or, for a Deny, denied: marked so)
// across statements, each with the statement that names it.
func actions(sts map[string]map[string]any) map[string]bool {
	out := map[string]bool{}
	for sid, s := range sts {
		deny := ""
		if s["Effect"] == "Deny" {
			deny = "deny "
		}
		for a := range list(s["Action"]) {
			out[deny+a+" ("+sid+")"] = true
		}
	}
	return out
}
