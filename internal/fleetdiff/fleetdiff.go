// Package fleetdiff compares the bundles two revisions of the profiles
// render, environment by environment, and says what the change does in
// Karpenter's terms: nodes replaced (drift), changed in place, objects the
// API server makes you recreate, IAM actions granted or taken away, Helm
// values that restart the controller, and every other file as a short
// unified diff. It compares what was rendered in memory; it writes
// nothing.
package fleetdiff

import (
	"bytes"
	"fmt"
	"maps"
	"slices"
	"sync"

	"github.com/karpgen/karpgen/generators"
	"github.com/karpgen/karpgen/internal/facts/drift"
	"github.com/karpgen/karpgen/internal/model"
)

// Side is what one revision of the profiles resolves to, and the
// bundles rendered of it (those of the environments that may differ).
type Side struct {
	Envs    map[string]*model.Env
	Bundles map[string]*model.Bundle
}

// NewSide indexes resolved environments and their bundles by name.
func NewSide(envs []*model.Env, bundles map[string]*model.Bundle) *Side {
	if bundles == nil {
		bundles = map[string]*model.Bundle{}
	}
	s := &Side{Envs: map[string]*model.Env{}, Bundles: bundles}
	for _, e := range envs {
		s.Envs[e.Name] = e
	}
	return s
}

// Report is the whole diff. Its JSON form is documented in docs/diff.md
// and stable: fields are only ever added.
type Report struct {
	// Base names the base: the folder or the git revision.
	Base string `json:"base"`
	// Environments counts the environments of either side compared.
	Environments int     `json:"environments"`
	Summary      Summary `json:"summary"`
	// Changes are the environments that change, by name.
	Changes []Env `json:"changes"`
	// Fleet are the files of out/ itself that change.
	Fleet []File `json:"fleet"`
}

// Summary counts what the change does across the fleet.
type Summary struct {
	Changed int      `json:"changed"`
	Added   []string `json:"added"`
	Removed []string `json:"removed"`
	// ReplaceNodes are the environments where nodes are replaced, with
	// the pools whose nodes go.
	ReplaceNodes []EnvPools `json:"replaceNodes"`
	// IAM are the environments whose IAM changes, with their accounts.
	IAM []EnvAccount `json:"iam"`
	// Versions are the environments whose Karpenter version changes.
	Versions []string `json:"versions"`
}

// EnvPools names the pools of an environment.
type EnvPools struct {
	Env   string   `json:"env"`
	Pools []string `json:"pools"`
}

// EnvAccount names the account of an environment.
type EnvAccount struct {
	Env     string `json:"env"`
	Account string `json:"account"`
}

// Env is what changes in one environment.
type Env struct {
	Name string `json:"name"`
	// Status is added, removed or changed.
	Status  string `json:"status"`
	Account string `json:"account"`
	// Version is the Karpenter version after the change (before it, for
	// a removed environment); VersionFrom is set when it changes.
	Version     string   `json:"version"`
	VersionFrom string   `json:"versionFrom,omitempty"`
	Objects     []Object `json:"objects"`
	IAM         []Policy `json:"iam"`
	Helm        []Value  `json:"helm"`
	Files       []File   `json:"files"`
	// Workloads are the workloads (diff --workloads) whose pods land
	// elsewhere, or stay Pending, after the change.
	Workloads []WorkloadMove `json:"workloads,omitempty"`
	// Capacity is what Karpenter launches for the workloads (diff
	// --workloads) before and after the change, when it differs.
	Capacity *CapacityChange `json:"capacity,omitempty"`
	// Disruption is what Karpenter's disruption controller makes of the
	// captured nodes (diff --disruption) before and after the change,
	// when it differs.
	Disruption *DisruptionChange `json:"disruption,omitempty"`
}

// DisruptionChange is what a change does to the captured nodes as
// Karpenter's disruption controller decides on them.
type DisruptionChange struct {
	// Nodes are the nodes whose fate the change alters.
	Nodes    []NodeFate     `json:"nodes"`
	Before   DisruptionSide `json:"before"`
	After    DisruptionSide `json:"after"`
	Prices   string         `json:"prices"`
	Currency string         `json:"currency,omitempty"`
}

// DisruptionSide is one side's decision: the nodes its commands remove
// this round and what they save an hour, the nodes that would go alone
// in a later round, and the nodes drifted.
type DisruptionSide struct {
	Now     int     `json:"now"`
	Saved   float64 `json:"saved"`
	Later   int     `json:"later"`
	Drifted int     `json:"drifted"`
}

// NodeFate is a captured node and what becomes of it on each side.
type NodeFate struct {
	Node   string `json:"node"`
	Before string `json:"before"`
	After  string `json:"after"`
}

// CapacityChange is the nodes Karpenter launches for the workloads on
// each side of a change.
type CapacityChange struct {
	Before Capacity `json:"before"`
	After  Capacity `json:"after"`
	// Prices says where the prices come from, or why there are none.
	Prices string `json:"prices"`
	Priced bool   `json:"priced"`
	// Currency is the ISO 4217 code of the prices, when priced.
	Currency string `json:"currency,omitempty"`
}

// Capacity is the nodes Karpenter launches, their instance mix ("2
// c5.xlarge spot, 1 m5.large on-demand") and what they cost an hour.
type Capacity struct {
	Nodes   int     `json:"nodes"`
	Mix     string  `json:"mix"`
	PerHour float64 `json:"perHour,omitempty"`
	Pending int     `json:"pending"`
}

// WorkloadMove is a workload whose pods land elsewhere after a change,
// as Karpenter's scheduler places them (karpgen simulate).
type WorkloadMove struct {
	File string `json:"file"`
	Line int    `json:"line"`
	// Workload is its kind, namespace and name.
	Workload string `json:"workload"`
	// Before and After say where its pods land: node groups, pools, and
	// how many stay Pending and why.
	Before string `json:"before"`
	After  string `json:"after"`
}

// Object is a NodePool or an EC2NodeClass that changes.
type Object struct {
	Kind string `json:"kind"`
	Name string `json:"name"`
	// Status is added, removed or changed.
	Status string `json:"status"`
	// Effect is the most disruptive effect of its changes: recreate,
	// drift or in-place; create and delete for an added or removed one.
	Effect string `json:"effect"`
	// Changes are the fields that change, with their effects.
	Changes []drift.Change `json:"changes"`
	// Pools are the NodePools whose nodes the effect reaches: the pool
	// itself, or every pool made from a node class.
	Pools []Pacing `json:"pools"`
}

// Pacing is what limits the replacement of a pool's nodes.
type Pacing struct {
	Pool    string         `json:"pool"`
	Budgets []drift.Budget `json:"budgets"`
	Summary string         `json:"summary"`
}

// Policy is an IAM policy document that changes.
type Policy struct {
	File string `json:"file"`
	// Status is added, removed or changed.
	Status string `json:"status"`
	// Trust is set for a role's trust policy.
	Trust          bool        `json:"trust"`
	ActionsAdded   []string    `json:"actionsAdded"`
	ActionsRemoved []string    `json:"actionsRemoved"`
	Statements     []Statement `json:"statements"`
}

// Statement is a statement of a policy that changes.
type Statement struct {
	Sid string `json:"sid"`
	// Status is added, removed or changed.
	Status string `json:"status"`
	// Fields are the elements of a changed statement that change
	// (Action, Condition, Effect, Principal, Resource, …).
	Fields []string `json:"fields"`
	// ResourcesAdded and ResourcesRemoved are the resources a changed
	// statement gains and loses.
	ResourcesAdded   []string `json:"resourcesAdded"`
	ResourcesRemoved []string `json:"resourcesRemoved"`
}

// Value is a Helm value that changes; From or To is null when absent.
type Value struct {
	Key  string `json:"key"`
	From any    `json:"from"`
	To   any    `json:"to"`
}

// File is any other file that changes, as a unified diff cut at
// MaxDiffLines lines; Lines counts the whole diff.
type File struct {
	Path   string `json:"path"`
	Status string `json:"status"`
	Diff   string `json:"diff"`
	Lines  int    `json:"lines"`
}

// MaxDiffLines is how much of a file's unified diff a report keeps.
const MaxDiffLines = 40

// Differ compares the head's bundles with the base's as a render hands
// them over (it is a pipeline sink), so that a head bundle is dropped as
// soon as it is compared: the heap holds one side of the fleet, not two.
type Differ struct {
	baseName string
	base     *Side
	head     map[string]*model.Env
	names    []string
	wanted   map[string]bool
	// all says no environment was named: the files of out/ itself are
	// compared too.
	all bool

	mu      sync.Mutex
	changes map[string]*Env
	fleet   []File
}

// NewDiffer compares against base the head environments given, for the
// environments named (all of either side when none is).
func NewDiffer(baseName string, base *Side, head map[string]*model.Env, names []string) *Differ {
	all := len(names) == 0
	if all {
		seen := map[string]bool{}
		for n := range base.Envs {
			seen[n] = true
		}
		for n := range head {
			seen[n] = true
		}
		names = slices.Collect(maps.Keys(seen))
	}
	slices.Sort(names)
	names = slices.Compact(names)
	wanted := map[string]bool{}
	for _, n := range names {
		wanted[n] = true
	}
	return &Differ{baseName: baseName, base: base, head: head, names: names, wanted: wanted, all: all, changes: map[string]*Env{}}
}

// Put compares one head bundle.
func (d *Differ) Put(b *model.Bundle) error {
	if !d.wanted[b.Env] {
		return nil
	}
	e, err := compareEnv(b.Env, d.base, d.head, b)
	if err != nil {
		return fmt.Errorf("%s: %w", b.Env, err)
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	d.changes[b.Env] = e
	return nil
}

// Unchanged records environments of both sides whose bundles are known
// to be the same without rendering them (their resolved inputs are).
func (d *Differ) Unchanged(names ...string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, n := range names {
		d.changes[n] = nil
	}
}

// Finish compares the environments only the base has. The render calls
// it; the files of out/ itself are compared by Fleet.
func (d *Differ) Finish(map[string][]byte) error {
	for _, name := range d.names {
		if _, ok := d.head[name]; ok {
			continue
		}
		e, err := compareEnv(name, d.base, d.head, nil)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		d.changes[name] = e
	}
	return nil
}

// Fleet compares the files of out/ itself, which every environment
// shares; only a diff of the whole fleet (no environment named) does.
func (d *Differ) Fleet(base, head map[string][]byte) error {
	if !d.all {
		return nil
	}
	var err error
	d.fleet, err = files(base, head, func(string) bool { return true })
	return err
}

// Report is the diff, once every bundle is in.
func (d *Differ) Report() (*Report, error) {
	r := &Report{Base: d.baseName, Environments: len(d.names), Changes: []Env{}, Fleet: d.fleet}
	if r.Fleet == nil {
		r.Fleet = []File{}
	}
	r.Summary = Summary{Added: []string{}, Removed: []string{}, ReplaceNodes: []EnvPools{}, IAM: []EnvAccount{}, Versions: []string{}}
	for _, name := range d.names {
		e, ok := d.changes[name]
		if !ok {
			if _, inHead := d.head[name]; inHead {
				return nil, fmt.Errorf("%s: the render did not hand over its bundle", name)
			}
			return nil, fmt.Errorf("no environment %q on either side", name)
		}
		if e == nil {
			continue
		}
		r.Changes = append(r.Changes, *e)
		r.Summary.add(e)
	}
	return r, nil
}

func (s *Summary) add(e *Env) {
	s.Changed++
	switch e.Status {
	case "added":
		s.Added = append(s.Added, e.Name)
	case "removed":
		s.Removed = append(s.Removed, e.Name)
	}
	var pools []string
	for _, o := range e.Objects {
		if e.Status != "changed" {
			break
		}
		if o.Effect == string(drift.Drift) || o.Effect == string(drift.Recreate) || o.Effect == "delete" {
			for _, p := range o.Pools {
				pools = append(pools, p.Pool)
			}
		}
	}
	if len(pools) > 0 {
		slices.Sort(pools)
		s.ReplaceNodes = append(s.ReplaceNodes, EnvPools{e.Name, slices.Compact(pools)})
	}
	if len(e.IAM) > 0 && e.Status == "changed" {
		s.IAM = append(s.IAM, EnvAccount{e.Name, e.Account})
	}
	if e.VersionFrom != "" {
		s.Versions = append(s.Versions, e.Name)
	}
}

// compareEnv is the diff of one environment, given the head's bundle
// (nil when the head has no such environment); nil when nothing changes.
func compareEnv(name string, base *Side, head map[string]*model.Env, hb *model.Bundle) (*Env, error) {
	be, hasBase := base.Envs[name]
	he, hasHead := head[name]
	if !hasBase && !hasHead {
		return nil, fmt.Errorf("no such environment on either side")
	}
	return Compare(name, be, he, base.Bundles[name], hb)
}

// Compare is what a change does to one environment: was and base are the
// environment and its bundle before the change (nil when the change adds
// it), env and head after it (nil when the change removes it). It is nil
// when the bundles are the same. karpgen diff compares two revisions of
// the profiles with it; karpgen upgrade compares the environment at two
// Karpenter releases with it, so both tell the same change the same way.
func Compare(name string, was, env *model.Env, base, head *model.Bundle) (*Env, error) {
	newEnv := func(status string, e *model.Env) *Env {
		return &Env{Name: name, Status: status, Account: e.Profile.Cluster.AccountID, Version: e.Profile.Karpenter.Version,
			Objects: []Object{}, IAM: []Policy{}, Helm: []Value{}, Files: []File{}}
	}
	switch {
	case was == nil && env == nil:
		return nil, fmt.Errorf("no such environment on either side")
	case was == nil:
		e := newEnv("added", env)
		return e, fillEnv(e, nil, env, nil, head)
	case env == nil:
		e := newEnv("removed", was)
		return e, fillEnv(e, nil, was, base, nil)
	}
	if sameFiles(base, head) {
		return nil, nil
	}
	e := newEnv("changed", env)
	if v := was.Profile.Karpenter.Version; v != e.Version {
		e.VersionFrom = v
	}
	return e, fillEnv(e, was, env, base, head)
}

func sameFiles(a, b *model.Bundle) bool {
	if len(a.Files) != len(b.Files) {
		return false
	}
	for p, t := range a.Files {
		if u, ok := b.Files[p]; !ok || !bytes.Equal(t, u) {
			return false
		}
	}
	return true
}

// fillEnv compares the files of two bundles (nil for a side without the
// environment), by the rules of the release env runs once the change is
// applied (and of the release it ran before, was's, when both sides have
// the environment). An environment added or removed is told in brief: its
// objects, policies and files by name, not its every value.
func fillEnv(e *Env, was, env *model.Env, base, head *model.Bundle) error {
	rules, err := drift.For(env.Facts.Reference)
	if err != nil {
		return err
	}
	from := rules
	if was != nil {
		if from, err = drift.For(was.Facts.Reference); err != nil {
			return err
		}
	}
	bf, hf := filesOf(base), filesOf(head)
	if e.Objects, err = objects(from, rules, env, bf, hf); err != nil {
		return err
	}
	e.IAM = policies(bf, hf)
	whole := base == nil || head == nil
	if whole {
		for i := range e.IAM {
			e.IAM[i].Statements = []Statement{}
		}
	} else if e.Helm, err = helmValues(bf[model.FileHelmValues], hf[model.FileHelmValues]); err != nil {
		return err
	}
	told := map[string]bool{model.FileNodePools: true, model.FileNodeClasses: true, model.FileHelmValues: true}
	for _, pol := range e.IAM {
		told[pol.File] = true
	}
	if e.Files, err = files(bf, hf, func(p string) bool { return !told[p] }); err != nil {
		return err
	}
	if whole {
		for i := range e.Files {
			e.Files[i].Diff = ""
		}
	}
	return nil
}

func filesOf(b *model.Bundle) map[string][]byte {
	if b == nil {
		return map[string][]byte{}
	}
	return b.Files
}

// effectOf is the most disruptive effect of a list of changes.
func effectOf(changes []drift.Change) drift.Effect {
	e := drift.InPlace
	for _, c := range changes {
		if c.Effect.Rank() > e.Rank() {
			e = c.Effect
		}
	}
	return e
}

func status(inBase, inHead bool) string {
	switch {
	case !inBase:
		return "added"
	case !inHead:
		return "removed"
	}
	return "changed"
}

// CompareChange is karpgen diff of one environment before and after a change
// of its profile, both rendered here; base names the side before in the
// report. promote and rotate tell each change they plan through it.
func CompareChange(base string, before, after *model.Env) (*Report, error) {
	r := generators.NewRenderer()
	b, err := r.Render(before)
	if err != nil {
		return nil, err
	}
	a, err := r.Render(after)
	if err != nil {
		return nil, err
	}
	d := NewDiffer(base, NewSide([]*model.Env{before}, map[string]*model.Bundle{before.Name: b}),
		map[string]*model.Env{after.Name: after}, []string{after.Name})
	if err := d.Put(a); err != nil {
		return nil, err
	}
	return d.Report()
}
