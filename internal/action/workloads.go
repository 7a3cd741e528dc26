package action

import (
	"context"
	"time"

	"github.com/karpgen/karpgen/generators"
	"github.com/karpgen/karpgen/internal/diag"
	"github.com/karpgen/karpgen/internal/fleetdiff"
	"github.com/karpgen/karpgen/internal/model"
	"github.com/karpgen/karpgen/internal/output"
	"github.com/karpgen/karpgen/internal/simulate"
)

// WorkloadsTimeout is what vet --workloads and diff --workloads give the
// reading of the workloads and all their simulations.
const WorkloadsTimeout = 2 * time.Minute

// Place renders the environment and places the workloads on it with
// Karpenter's scheduler (helper is karpgen-simulate) within ctx's
// deadline, its offerings priced at prices.
func Place(ctx context.Context, e *model.Env, helper string, ws []simulate.Workload, prices simulate.Prices) (*simulate.Report, error) {
	req, resp, err := ask(ctx, e, helper, func(nodePools []byte) (*simulate.Request, error) {
		return simulate.NewRequest(e, nodePools, ws, prices)
	})
	if err != nil {
		return nil, err
	}
	return simulate.NewReport(e.Name, prices, req, resp), nil
}

// ask renders the environment, builds the helper's request from its
// rendered NodePools and asks the helper, within ctx's deadline.
func ask(ctx context.Context, e *model.Env, helper string, build func(nodePools []byte) (*simulate.Request, error)) (*simulate.Request, *simulate.Response, error) {
	b, err := generators.Render(e)
	if err != nil {
		return nil, nil, err
	}
	req, err := build(b.Files[model.FileNodePools])
	if err != nil {
		return nil, nil, err
	}
	resp, err := simulate.Run(ctx, helper, req)
	return req, resp, err
}

// Simulate places workloads on one environment with Karpenter's own
// scheduler, run by karpgen-simulate (karpgen simulate).
type Simulate struct {
	Eval
	Dir, Env string
	// Workloads are manifests or folders of them.
	Workloads []string
	// SimTimeout covers the reading of the workloads and the simulation.
	SimTimeout time.Duration
	// State is a capture of the environment's cluster, whose prices
	// price the nodes ("" for Karpenter's tables).
	State string
	// At is the time Disrupt decides at; zero for the capture's.
	At time.Time
}

// Run simulates.
func (s *Simulate) Run() (*simulate.Report, error) {
	helper, e, err := s.start()
	if err != nil {
		return nil, err
	}
	paths := s.Workloads
	prices, err := PricesOf("simulate", s.State, e)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), s.SimTimeout)
	defer cancel()
	ws, err := ReadWorkloads(ctx, paths)
	if err != nil {
		return nil, failure("simulate: %w", err)
	}
	report, err := Place(ctx, e, helper, ws, prices)
	if err != nil {
		return nil, failure("simulate: %w", err)
	}
	return report, nil
}

// ReadWorkloads reads the workloads of files and folders as
// simulate.ReadWorkloads does, a folder with a kustomization built by
// output.BuildWorkloads.
func ReadWorkloads(ctx context.Context, paths []string) ([]simulate.Workload, error) {
	return simulate.ReadWorkloads(ctx, paths, output.BuildWorkloads)
}

// start finds the helper and the environment, as Run and Disrupt both
// begin.
func (s *Simulate) start() (helper string, e *model.Env, err error) {
	if helper, err = simulate.FindHelper(); err != nil {
		return "", nil, &FailureError{Err: err}
	}
	envs, err := named(s.Dir, []string{s.Env}, s.Eval, false)
	if err != nil {
		return "", nil, err
	}
	return helper, envs[0], nil
}

// VetWorkloads places the workloads on every environment and returns a
// finding for each that would never schedule.
func VetWorkloads(envs []*model.Env, paths []string) ([]diag.Finding, error) {
	helper, err := simulate.FindHelper()
	if err != nil {
		return nil, failure("vet: --workloads: %w", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), WorkloadsTimeout)
	defer cancel()
	ws, err := ReadWorkloads(ctx, paths)
	if err != nil {
		return nil, failure("vet: --workloads: %w", err)
	}
	var out []diag.Finding
	for _, e := range envs {
		report, err := Place(ctx, e, helper, ws, simulate.TablePrices(e.Profile.Cluster.Region))
		if err != nil {
			return nil, failure("vet: --workloads: %s: %w", e.Name, err)
		}
		out = append(out, report.Findings()...)
	}
	return out, nil
}

// DiffWorkloads places the workloads on both sides of every environment
// the report finds changed, and adds to its change the workloads that
// land elsewhere and the capacity that changes. states names captures by
// environment, whose prices price both sides.
func DiffWorkloads(report *fleetdiff.Report, base, head *Result, paths []string, states map[string]string) error {
	helper, err := simulate.FindHelper()
	if err != nil {
		return failure("diff: --workloads: %w", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), WorkloadsTimeout)
	defer cancel()
	ws, err := ReadWorkloads(ctx, paths)
	if err != nil {
		return failure("diff: --workloads: %w", err)
	}
	baseEnvs, headEnvs := envsByName(base.Envs), envsByName(head.Envs)
	for i := range report.Changes {
		c := &report.Changes[i]
		before, after := baseEnvs[c.Name], headEnvs[c.Name]
		if c.Status != "changed" || before == nil || after == nil {
			continue
		}
		var sides [2]*simulate.Report
		for j, e := range []*model.Env{before, after} {
			prices, err := PricesOf("diff", states[c.Name], e)
			if err != nil {
				return err
			}
			if sides[j], err = Place(ctx, e, helper, ws, prices); err != nil {
				return failure("diff: --workloads: %s: %w", c.Name, err)
			}
		}
		for _, m := range simulate.Moves(sides[0], sides[1]) {
			c.Workloads = append(c.Workloads, fleetdiff.WorkloadMove{File: m.File, Line: m.Line, Workload: m.Workload, Before: m.Before, After: m.After})
		}
		capBefore, capAfter := sides[0].Summary(), sides[1].Summary()
		if capBefore != capAfter {
			c.Capacity = &fleetdiff.CapacityChange{Before: capBefore, After: capAfter, Prices: sides[1].Capacity.Prices, Priced: sides[1].Capacity.Priced, Currency: sides[1].Capacity.Currency}
		}
	}
	return nil
}

// PricesOf are the prices of an environment's offerings: its capture's
// in dir (read as the plans read it, so another cluster's capture is
// refused), or Karpenter's tables' for dir "".
func PricesOf(cmd, dir string, e *model.Env) (simulate.Prices, error) {
	region := e.Profile.Cluster.Region
	if dir == "" {
		return simulate.TablePrices(region), nil
	}
	c, err := ReadState(cmd, dir, e)
	if err != nil {
		return simulate.Prices{}, err
	}
	return simulate.CapturedPrices(region, c.Prices), nil
}
