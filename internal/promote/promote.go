// Package promote plans karpgen promote: moving the AMI release an
// environment has tested (its node classes' pinned aliases) to the next
// environment, as a change of that environment's profile, with what the
// change does to its bundle: which pools' nodes drift, and how the
// budgets pace their replacement.
package promote

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/karpgen/karpgen/internal/fleetdiff"
	"github.com/karpgen/karpgen/internal/model"
)

// Plan is a promotion from one environment to another.
type Plan struct {
	From string `json:"from"`
	To   string `json:"to"`
	// Changes are the profile fields of To to set, one per node class
	// whose alias moves.
	Changes []Change `json:"changes"`
	// Skipped are To's node classes left as they are, and why.
	Skipped []Skip `json:"skipped"`
	// Diff is what rendering To with the changes does to its bundle, as
	// karpgen diff reports it; nil when nothing moves.
	Diff *fleetdiff.Report `json:"diff"`
}

// Change sets one field of To's profile.
type Change struct {
	Class string `json:"class"`
	Path  string `json:"path"`
	From  string `json:"from"`
	To    string `json:"to"`
}

// Skip is a node class of To that keeps its alias.
type Skip struct {
	Class  string `json:"class"`
	Reason string `json:"reason"`
}

// Error is a promotion that cannot be planned: the profile must change
// first (it names no pinned release, or no class the two share).
type Error struct{ Msg string }

func (e *Error) Error() string { return e.Msg }

// New plans moving from's AMI aliases to to, for the node classes named
// (every class the two environments share when none is). A class of
// from's that follows @latest has no release to promote: from must pin
// the release it tested.
func New(from, to *model.Env, classes []string) (*Plan, error) {
	plan := &Plan{From: from.Name, To: to.Name, Changes: []Change{}, Skipped: []Skip{}}
	for _, c := range classes {
		if _, ok := to.Profile.NodeClasses[c]; !ok {
			return nil, &Error{fmt.Sprintf("environment %s has no node class %q (it has %s)", to.Name, c, strings.Join(slices.Sorted(maps.Keys(to.Profile.NodeClasses)), ", "))}
		}
	}
	next := *to.Profile
	next.NodeClasses = maps.Clone(to.Profile.NodeClasses)
	for _, name := range slices.Sorted(maps.Keys(to.Profile.NodeClasses)) {
		if len(classes) > 0 && !slices.Contains(classes, name) {
			continue
		}
		nc := to.Profile.NodeClasses[name]
		tested, ok := from.Profile.NodeClasses[name]
		switch {
		case !ok:
			plan.Skipped = append(plan.Skipped, Skip{name, fmt.Sprintf("%s has no node class %q", from.Name, name)})
			continue
		case tested.AMI.Alias == "":
			plan.Skipped = append(plan.Skipped, Skip{name, fmt.Sprintf("%s selects its AMIs without an alias", from.Name)})
			continue
		case nc.AMI.Alias == "":
			plan.Skipped = append(plan.Skipped, Skip{name, fmt.Sprintf("%s selects its AMIs without an alias", to.Name)})
			continue
		case strings.HasSuffix(tested.AMI.Alias, "@latest"):
			return nil, &Error{fmt.Sprintf("node class %q of %s follows %q: there is no tested release to promote; pin the release %s runs (e.g. %q) and promote that",
				name, from.Name, tested.AMI.Alias, from.Name, family(tested.AMI.Alias)+"@v20250116")}
		case family(tested.AMI.Alias) != family(nc.AMI.Alias):
			plan.Skipped = append(plan.Skipped, Skip{name, fmt.Sprintf("%s runs %s, %s runs %s: another AMI family", from.Name, family(tested.AMI.Alias), to.Name, family(nc.AMI.Alias))})
			continue
		case tested.AMI.Alias == nc.AMI.Alias:
			plan.Skipped = append(plan.Skipped, Skip{name, fmt.Sprintf("%s already runs %s", to.Name, nc.AMI.Alias)})
			continue
		}
		plan.Changes = append(plan.Changes, Change{Class: name, Path: "environments." + to.Name + ".nodeClasses." + name + ".ami.alias", From: nc.AMI.Alias, To: tested.AMI.Alias})
		nc.AMI.Alias = tested.AMI.Alias
		next.NodeClasses[name] = nc
	}
	if len(plan.Changes) == 0 {
		return plan, nil
	}
	after := model.Resolve(&next)
	after.Guardrails = to.Guardrails
	var err error
	if plan.Diff, err = fleetdiff.CompareChange(to.Name+" before the promotion", to, after); err != nil {
		return nil, err
	}
	return plan, nil
}

// family is an alias's AMI family: "al2023" of "al2023@v20250116".
func family(alias string) string {
	f, _, _ := strings.Cut(alias, "@")
	return f
}
