package action

import (
	"errors"
	"time"

	"github.com/karpgen/karpgen/internal/doctor/live"
	"github.com/karpgen/karpgen/internal/load"
	"github.com/karpgen/karpgen/internal/model"
	"github.com/karpgen/karpgen/internal/plan/migrate"
	"github.com/karpgen/karpgen/internal/plan/promote"
	"github.com/karpgen/karpgen/internal/plan/rotate"
	"github.com/karpgen/karpgen/internal/plan/upgrade"
	"github.com/karpgen/karpgen/internal/util/gcpolicy"
)

// The flags that bound what profiles may expand to, and their defaults.
const (
	FlagMaxEnvironments    = load.FlagMaxEnvironments
	DefaultMaxEnvironments = load.DefaultMaxEnvironments
	FlagMaxObjects         = load.FlagMaxObjects
	DefaultMaxObjects      = load.DefaultMaxObjects
)

// Eval bounds the evaluation of the profiles: how long it may take and
// how much they may expand to.
type Eval struct {
	Timeout time.Duration
	Limits  load.Limits
}

func (ev Eval) options(dir string, envs []string) Options {
	return Options{Dir: dir, Envs: envs, Timeout: ev.Timeout, Limits: &ev.Limits, GC: gcpolicy.Fleet}
}

// named checks the profiles of dir and returns the environments named,
// in the order named, or an *InvalidError with the findings when one of
// them does not vet. keepInvalid returns an environment the rules refuse
// (upgrade reports that as blockers of the target).
func named(dir string, names []string, ev Eval, keepInvalid bool) ([]*model.Env, error) {
	opts := ev.options(dir, names)
	opts.KeepInvalid = keepInvalid
	res, err := checkNamed(opts)
	if err != nil {
		return nil, err
	}
	return res.Envs, nil
}

// checkNamed checks the environments opts names, and gives them in Envs
// in that order; one missing (refused) is an *InvalidError.
func checkNamed(opts Options) (*Result, error) {
	res, err := Check(opts)
	if err != nil {
		return nil, err
	}
	by := envsByName(res.Envs)
	out := make([]*model.Env, len(opts.Envs))
	for i, n := range opts.Envs {
		if out[i] = by[n]; out[i] == nil {
			return nil, &InvalidError{Findings: res.Findings}
		}
	}
	res.Envs = out
	return res, nil
}

// Upgrade plans the move of one environment to another Karpenter
// version (karpgen upgrade).
type Upgrade struct {
	Eval
	Dir, Env string
	Options  upgrade.Options
	// State is the capture the plan reads, "" for none.
	State string
}

// Run makes the plan. An option the plan refuses is an *OptionError.
func (u *Upgrade) Run() (*upgrade.Plan, error) {
	return planOne("upgrade", u.Dir, u.Env, u.Eval, true, u.State, func(e *model.Env, capture *live.Cluster) (*upgrade.Plan, error) {
		o := u.Options
		o.Live = capture
		return upgrade.New(e, o)
	})
}

// planOne runs a planner (command names it) on one environment and the
// capture of its cluster read from state ("" for none); strict loads the
// environment as upgrade does (see named).
func planOne[T any](command, dir, env string, ev Eval, strict bool, state string, plan func(*model.Env, *live.Cluster) (T, error)) (T, error) {
	var none T
	envs, err := named(dir, []string{env}, ev, strict)
	if err != nil {
		return none, err
	}
	capture, err := ReadState(command, state, envs[0])
	if err != nil {
		return none, err
	}
	return plan(envs[0], capture)
}

// Migrate makes the runbook from Cluster Autoscaler (karpgen migrate).
type Migrate struct {
	Eval
	Dir, Env string
	Options  migrate.Options
	State    string
}

// Run makes the runbook. An option it refuses is an *OptionError.
func (m *Migrate) Run() (*migrate.Runbook, error) {
	return planOne("migrate", m.Dir, m.Env, m.Eval, false, m.State, func(e *model.Env, capture *live.Cluster) (*migrate.Runbook, error) {
		o := m.Options
		o.Live = capture
		return migrate.FromClusterAutoscaler(e, o)
	})
}

// Promote plans moving the AMI releases of From to To (karpgen
// promote).
type Promote struct {
	Eval
	Dir, From, To string
	Classes       []string
	// State is the capture of To's cluster.
	State string
}

// Run makes the plan.
func (p *Promote) Run() (*promote.Plan, error) {
	if p.From == "" || p.To == "" || p.From == p.To {
		return nil, usage("promote: --from and --to name two environments")
	}
	envs, err := named(p.Dir, []string{p.From, p.To}, p.Eval, false)
	if err != nil {
		return nil, err
	}
	plan, err := promote.New(envs[0], envs[1], p.Classes)
	var refused *promote.Error
	if errors.As(err, &refused) {
		return nil, usage("promote: %s", refused.Msg)
	}
	if err != nil {
		return nil, err
	}
	cluster, err := ReadState("promote", p.State, envs[1])
	if err != nil {
		return nil, err
	}
	plan.Read(cluster)
	return plan, nil
}

// Rotate plans a change of a pool that would replace all its nodes at
// once as three changes of the profile (karpgen rotate). The base is read
// as diff reads it.
type Rotate struct {
	Eval
	Dir, Env, Pool, Next string
	Base                 Base
	State                string
}

// Run makes the plan.
func (r *Rotate) Run() (*rotate.Plan, error) {
	if r.Pool == "" {
		return nil, usage("rotate: --pool is required")
	}
	if r.Base.Named() != 1 {
		return nil, usage("rotate: name the base once, with --base, --base-rev or --base-dir")
	}
	folder, label, closeBase, err := r.Base.Open(r.Dir)
	if err != nil {
		return nil, err
	}
	defer closeBase()
	if folder.FS == nil {
		return nil, usage("rotate: the base (%s) has no profiles", label)
	}
	side := func(name string, folder *load.Folder, dir string) (*Result, error) {
		return CheckSide("rotate", name, Options{Dir: dir, Folder: folder, Timeout: r.Timeout, Limits: &r.Limits, GC: gcpolicy.Diff})
	}
	base, err := side("base profiles ("+label+")", &folder, "")
	if err != nil {
		return nil, err
	}
	head, err := side("profiles ("+r.Dir+")", nil, r.Dir)
	if err != nil {
		return nil, err
	}
	b, h := envsByName(base.Envs)[r.Env], envsByName(head.Envs)[r.Env]
	if b == nil || h == nil {
		return nil, usage("rotate: environment %q is not on both sides", r.Env)
	}
	plan, err := rotate.New(b, h, r.Pool, r.Next)
	var refused *rotate.Error
	if errors.As(err, &refused) {
		return nil, usage("rotate: %s", refused.Msg)
	}
	if err != nil {
		return nil, err
	}
	cluster, err := ReadState("rotate", r.State, h)
	if err != nil {
		return nil, err
	}
	plan.Read(cluster)
	return plan, nil
}
