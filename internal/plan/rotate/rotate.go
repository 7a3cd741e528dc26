// Package rotate plans karpgen rotate: a change of a pool that would
// replace every node at once (new requirements, a new node class) rolled
// out as three changes of the profile instead, each with what it does:
// add the new pool beside the old one, cap the old one so that it only
// drains, then remove it.
package rotate

import (
	"fmt"
	"maps"
	"reflect"
	"slices"

	"github.com/karpgen/karpgen/internal/fleetdiff"
	"github.com/karpgen/karpgen/internal/lint"
	"github.com/karpgen/karpgen/internal/model"
	"github.com/karpgen/karpgen/internal/profile"
	"github.com/karpgen/karpgen/internal/util/escape"
)

// Plan is the rotation of one pool of one environment.
type Plan struct {
	Env  string `json:"env"`
	Pool string `json:"pool"`
	// Next is the name of the pool that takes over; NextClass the node
	// class it launches from when the change is the class's.
	Next      string `json:"next"`
	NextClass string `json:"nextClass,omitempty"`
	// Direct is what the change does applied at once, as karpgen diff
	// reports it.
	Direct *fleetdiff.Report `json:"direct"`
	Steps  []Step            `json:"steps"`
	// Notes say where the steps' end differs from the change as written.
	Notes []string `json:"notes"`
	// State is the capture the plan read (Read); Live is what it says of
	// the nodes the drain replaces. Without one, Assumes says what the
	// plan cannot count.
	State   string   `json:"state,omitempty"`
	Live    []string `json:"live,omitempty"`
	Assumes []string `json:"assumes,omitempty"`
}

// Step is one change of the profile and what rendering it does.
type Step struct {
	Title string `json:"title"`
	// Changes are the profile's edits, in words.
	Changes []string `json:"changes"`
	// Then are the commands to run once it is rendered and applied.
	Then []string          `json:"then"`
	Diff *fleetdiff.Report `json:"diff"`
}

// Error is a rotation that cannot be planned as asked.
type Error struct{ Msg string }

func (e *Error) Error() string { return e.Msg }

// New plans rotating pool from its form in base to its form in head (the
// same environment before and after the change). The new pool is named
// next (pool + "-next" when empty); when the pool's node class changes
// too, the new form of the class becomes a class of its own, so that the
// old pool's nodes keep theirs until they leave.
func New(base, head *model.Env, pool, next string) (*Plan, error) {
	old, ok := base.Profile.NodePools[pool]
	if !ok {
		return nil, &Error{fmt.Sprintf("the base of %s has no pool %q", base.Name, pool)}
	}
	want, ok := head.Profile.NodePools[pool]
	if !ok {
		return nil, &Error{fmt.Sprintf("environment %s has no pool %q", head.Name, pool)}
	}
	if next == "" {
		next = pool + "-next"
	}
	if msg := lint.CheckObjectName("the new pool's", next); msg != "" {
		return nil, &Error{msg + ": name the new pool with --next"}
	}
	if _, taken := head.Profile.NodePools[next]; taken {
		return nil, &Error{fmt.Sprintf("environment %s has a pool %q already: name the new pool with --next", head.Name, next)}
	}
	if _, taken := base.Profile.NodePools[next]; taken {
		return nil, &Error{fmt.Sprintf("the base of %s has a pool %q already: name the new pool with --next", base.Name, next)}
	}
	plan := &Plan{Env: head.Name, Pool: pool, Next: next}
	direct, err := fleetdiff.CompareChange("the change at once", base, head)
	if err != nil {
		return nil, err
	}
	plan.Direct = direct
	if !replaces(direct, pool) {
		return nil, &Error{fmt.Sprintf("the change replaces no node of pool %q at once: apply it as it is", pool)}
	}

	// Step 1: the new pool beside the old one, tried first.
	p1 := clone(base.Profile)
	newPool := want
	oldClass, newClass := base.Profile.NodeClasses[old.NodeClass], head.Profile.NodeClasses[want.NodeClass]
	var changes1 []string
	if want.NodeClass == old.NodeClass && !reflect.DeepEqual(oldClass, newClass) {
		plan.NextClass = want.NodeClass + "-next"
		if msg := lint.CheckObjectName("the new node class's", plan.NextClass); msg != "" {
			return nil, &Error{msg}
		}
		if _, taken := head.Profile.NodeClasses[plan.NextClass]; taken {
			return nil, &Error{fmt.Sprintf("environment %s has a node class %q already", head.Name, plan.NextClass)}
		}
		p1.NodeClasses[plan.NextClass] = newClass
		newPool.NodeClass = plan.NextClass
		changes1 = append(changes1, fmt.Sprintf("add node class %s: node class %s as the change makes it", plan.NextClass, want.NodeClass))
	} else if _, ok := p1.NodeClasses[want.NodeClass]; !ok {
		p1.NodeClasses[want.NodeClass] = newClass
		changes1 = append(changes1, fmt.Sprintf("add node class %s", want.NodeClass))
	}
	w := 10
	if old.Weight != nil {
		w = min(*old.Weight+10, 100)
	}
	newPool.Weight = &w
	p1.NodePools[next] = newPool
	changes1 = append(changes1, fmt.Sprintf("add pool %s: pool %s as the change makes it (on node class %s), with weight %d so that Karpenter tries it first", next, pool, newPool.NodeClass, w))
	s1, err := step(base, p1, "Add the new pool beside the old one", changes1,
		[]string{kubectl("get", "nodeclaims", "-l", "karpenter.sh/nodepool="+next) + "   # new capacity comes from " + next})
	if err != nil {
		return nil, err
	}

	// Step 2: the old pool launches nothing more, and drains.
	p2 := clone(p1)
	capped := p2.NodePools[pool]
	capped.Limits = map[string]any{"cpu": 0}
	for k := range p1.NodePools[pool].Limits {
		capped.Limits[k] = 0
	}
	p2.NodePools[pool] = capped
	s2, err := step(model.Resolve(p1), p2, "Cap the old pool so that it only drains", []string{
		fmt.Sprintf("set every limit of pool %s to 0 (cpu: 0 at least): it launches no node again; its nodes leave as consolidation empties them", pool),
	}, []string{
		kubectl("cordon", "-l", "karpenter.sh/nodepool="+pool),
		"kubectl drain <node> --ignore-daemonsets --delete-emptydir-data   # one node of pool " + pool + " at a time, as its PodDisruptionBudgets allow",
	})
	if err != nil {
		return nil, err
	}

	// Step 3: the old pool (and a class only it used) goes.
	p3 := clone(p2)
	delete(p3.NodePools, pool)
	changes3 := []string{fmt.Sprintf("remove pool %s", pool)}
	if !classUsed(p3, old.NodeClass) {
		delete(p3.NodeClasses, old.NodeClass)
		changes3 = append(changes3, fmt.Sprintf("remove node class %s, which no pool uses now", old.NodeClass))
	}
	s3, err := step(model.Resolve(p2), p3, "Remove the old pool", changes3,
		[]string{kubectl("get", "nodes", "-l", "karpenter.sh/nodepool="+pool) + "   # empty once its last node is deleted"})
	if err != nil {
		return nil, err
	}
	plan.Steps = []Step{s1, s2, s3}

	plan.Notes = append(plan.Notes, fmt.Sprintf("The profile then names the pool %s; keep the name: renaming a pool replaces its nodes again.", next))
	if plan.NextClass != "" {
		plan.Notes = append(plan.Notes, fmt.Sprintf("Pool %s launches from node class %s; renaming it replaces its nodes again.", next, plan.NextClass))
		for _, other := range slices.Sorted(maps.Keys(p3.NodePools)) {
			if p3.NodePools[other].NodeClass == old.NodeClass {
				plan.Notes = append(plan.Notes, fmt.Sprintf("Pool %s still launches from node class %s as it was: the change of the class reaches it only when it moves to %s (or is rotated too).", other, old.NodeClass, plan.NextClass))
			}
		}
	}
	rest, before := clone(head.Profile), clone(base.Profile)
	for _, p := range []*profile.Profile{rest, before} {
		delete(p.NodePools, pool)
		delete(p.NodeClasses, old.NodeClass)
		delete(p.NodeClasses, want.NodeClass)
	}
	if !reflect.DeepEqual(rest, before) {
		plan.Notes = append(plan.Notes, fmt.Sprintf("The change does more than pool %s and its node class; the steps hold only those: apply the rest on its own (karpgen diff shows it).", pool))
	}
	return plan, nil
}

func step(before *model.Env, p *profile.Profile, title string, changes, then []string) (Step, error) {
	after := model.Resolve(p)
	after.Guardrails = before.Guardrails
	d, err := fleetdiff.CompareChange(title, before, after)
	if err != nil {
		return Step{}, err
	}
	return Step{Title: title, Changes: changes, Then: append([]string{escape.ShellJoin("karpgen", "render", p.Env) + ", commit, and apply as the environment is delivered"}, then...), Diff: d}, nil
}

// kubectl is a kubectl command line, each word quoted for the shell.
// The names in it passed vet's rules (a pool's, an environment's) or
// CheckObjectName (--next), so the quoting is a second wall, not the
// first.
func kubectl(args ...string) string {
	return escape.ShellJoin(append([]string{"kubectl"}, args...)...)
}

// replaces says whether the report replaces nodes of the pool.
func replaces(r *fleetdiff.Report, pool string) bool {
	for _, e := range r.Summary.ReplaceNodes {
		if slices.Contains(e.Pools, pool) {
			return true
		}
	}
	return false
}

func classUsed(p *profile.Profile, class string) bool {
	for _, np := range p.NodePools {
		if np.NodeClass == class {
			return true
		}
	}
	return false
}

// clone copies what a step changes: the maps of pools and classes.
func clone(p *profile.Profile) *profile.Profile {
	c := *p
	c.NodePools = maps.Clone(p.NodePools)
	c.NodeClasses = maps.Clone(p.NodeClasses)
	return &c
}
