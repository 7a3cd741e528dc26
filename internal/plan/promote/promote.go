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
	"strconv"
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
	// State is the capture of To the plan read (Read); Live is what it
	// says of the nodes the move replaces. Without one, Assumes says what
	// the plan cannot count.
	State   string   `json:"state,omitempty"`
	Live    []string `json:"live,omitempty"`
	Assumes []string `json:"assumes,omitempty"`
}

// Change sets one field of To's profile.
type Change struct {
	Class string `json:"class"`
	Path  string `json:"path"`
	From  string `json:"from"`
	To    string `json:"to"`
	// Note says what a reviewer must know of the move: that it goes back
	// to an older release than To runs, or pins one To followed to the
	// newest.
	Note string `json:"note,omitempty"`
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
		change := Change{Class: name, Path: "environments." + to.Name + ".nodeClasses." + name + ".ami.alias", From: nc.AMI.Alias, To: tested.AMI.Alias}
		switch _, now, _ := strings.Cut(nc.AMI.Alias, "@"); {
		case now == "latest":
			change.Note = fmt.Sprintf("%s follows the newest release; this pins it to the release %s tested, and it no longer moves by itself", to.Name, from.Name)
		case olderRelease(release(tested.AMI.Alias), now):
			change.Note = fmt.Sprintf("a move back: %s runs %s, newer than the %s %s tested; its nodes are replaced with the older release", to.Name, now, release(tested.AMI.Alias), from.Name)
		}
		plan.Changes = append(plan.Changes, change)
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

// release is an alias's release: "v20250116" of "al2023@v20250116".
func release(alias string) string {
	_, r, _ := strings.Cut(alias, "@")
	return r
}

// olderRelease reports whether release a comes before b: their numbers
// ("v20250116", "v1.30.0") compared one by one.
func olderRelease(a, b string) bool {
	x, y := releaseNumbers(a), releaseNumbers(b)
	if x == nil || y == nil {
		return false
	}
	return slices.Compare(x, y) < 0
}

// releaseNumbers are the numbers of a release, or nil when it is not
// "v" followed by numbers and dots (and a build after a dash).
func releaseNumbers(r string) []int {
	r, _, _ = strings.Cut(strings.TrimPrefix(r, "v"), "-")
	var out []int
	for _, part := range strings.Split(r, ".") {
		n, err := strconv.Atoi(part)
		if err != nil {
			return nil
		}
		out = append(out, n)
	}
	return out
}

// family is an alias's AMI family: "al2023" of "al2023@v20250116".
func family(alias string) string {
	f, _, _ := strings.Cut(alias, "@")
	return f
}
