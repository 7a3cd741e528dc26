// Package drift says what Karpenter does with a change to a NodePool or an
// EC2NodeClass, by the rules of one release: whether existing nodes are
// replaced (drift), left alone (in place), or the object must be deleted
// and created again (the CRD refuses the change). The rules come from
// data/table.tsv, which go generate (hack/drifttable) derives from
// upstream's API types, drift checks and CRDs (data/SOURCE names them).
package drift

//go:generate go run ../../../hack/drifttable

import (
	_ "embed"
	"fmt"
	"strings"
	"sync"
)

//go:embed data/table.tsv
var tableTSV string

// Kinds of object the table describes.
const (
	NodePool     = "NodePool"
	EC2NodeClass = "EC2NodeClass"
)

// Rules are one release's drift rules.
type Rules struct {
	Release string
	Kinds   map[string]*KindRules
}

// KindRules are the drift rules of one kind of object.
type KindRules struct {
	// HashVersion is the version of the hash the static check compares.
	HashVersion string
	// HashInputs are what the hash takes besides the fields (e.g. the
	// AMI family resolved from the alias).
	HashInputs []string
	// Fields are the JSON paths of the hashed part of the object, true
	// when the field enters the hash, false when it is tagged
	// hash:"ignore" (itself or through a field above it).
	Fields map[string]bool
	// Reasons are the drift reasons the controller reports.
	Reasons map[string]bool
	// Transitions are the CRD's rules that compare a change with the old
	// object: the API server refuses a change that breaks one.
	Transitions []Transition
}

// Transition is a CEL rule of the CRD that names oldSelf.
type Transition struct {
	Path, Rule, Message string
}

var (
	loadOnce sync.Once
	releases map[string]*Rules
	loadErr  error
)

// For returns the rules of a reference release ("v1.14.3").
func For(release string) (*Rules, error) {
	loadOnce.Do(func() { releases, loadErr = parse(tableTSV) })
	if loadErr != nil {
		return nil, loadErr
	}
	r, ok := releases[release]
	if !ok {
		return nil, fmt.Errorf("the drift table has no release %s", release)
	}
	return r, nil
}

func parse(text string) (map[string]*Rules, error) {
	out := map[string]*Rules{}
	for i, line := range strings.Split(text, "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) != 6 {
			return nil, fmt.Errorf("drift table line %d: %d columns, want 6", i+1, len(f))
		}
		release, kind, row, path, value, message := f[0], f[1], f[2], f[3], f[4], f[5]
		r := out[release]
		if r == nil {
			r = &Rules{Release: release, Kinds: map[string]*KindRules{}}
			out[release] = r
		}
		k := r.Kinds[kind]
		if k == nil {
			k = &KindRules{Fields: map[string]bool{}, Reasons: map[string]bool{}}
			r.Kinds[kind] = k
		}
		switch row {
		case "hash-version":
			k.HashVersion = value
		case "hash-input":
			k.HashInputs = append(k.HashInputs, value)
		case "field":
			k.Fields[path] = value == "hashed"
		case "reason":
			k.Reasons[value] = true
		case "transition":
			k.Transitions = append(k.Transitions, Transition{path, value, message})
		default:
			return nil, fmt.Errorf("drift table line %d: unknown row %q", i+1, row)
		}
	}
	return out, nil
}
