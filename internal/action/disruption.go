package action

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/karpgen/karpgen/internal/doctor"
	"github.com/karpgen/karpgen/internal/fleetdiff"
	"github.com/karpgen/karpgen/internal/model"
	"github.com/karpgen/karpgen/internal/simulate"
)

// Disrupt says what Karpenter's disruption controller would do with the
// captured cluster (State) given the environment's pools: the command
// it starts this round, and why it leaves every other node
// (karpgen simulate --disruption).
func (s *Simulate) Disrupt() (*simulate.DisruptionReport, error) {
	helper, e, err := s.start()
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), s.SimTimeout)
	defer cancel()
	return disruptOn(ctx, "simulate", e, helper, s.State, s.At)
}

// disruptOn runs the disruption view of environment e on the capture in
// dir, at at (zero for the capture's time).
func disruptOn(ctx context.Context, cmd string, e *model.Env, helper, dir string, at time.Time) (*simulate.DisruptionReport, error) {
	prices, err := PricesOf(cmd, dir, e)
	if err != nil {
		return nil, err
	}
	st, closeFn, err := openState(cmd, dir)
	if err != nil {
		return nil, err
	}
	defer closeFn()
	objs, err := doctor.Objects(st, at)
	if err != nil {
		return nil, stateErr(cmd, dir, err)
	}
	_, resp, err := ask(ctx, e, helper, func(nodePools []byte) (*simulate.Request, error) {
		return simulate.NewDisruptionRequest(e, nodePools, prices, objs)
	})
	if err != nil {
		return nil, failure("%s: %w", cmd, err)
	}
	if resp.Disruption == nil {
		return nil, failure("%s: %s answered no disruption", cmd, simulate.Helper)
	}
	return simulate.NewDisruptionReport(e.Name, prices, resp.Disruption), nil
}

// DiffDisruption runs the disruption view on both sides of every
// changed environment that states gives a capture of, and adds to its
// change the nodes whose fate differs (diff --disruption).
func DiffDisruption(report *fleetdiff.Report, base, head *Result, states map[string]string) error {
	helper, err := simulate.FindHelper()
	if err != nil {
		return failure("diff: --disruption: %w", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), WorkloadsTimeout)
	defer cancel()
	baseEnvs, headEnvs := envsByName(base.Envs), envsByName(head.Envs)
	for i := range report.Changes {
		c := &report.Changes[i]
		before, after, dir := baseEnvs[c.Name], headEnvs[c.Name], states[c.Name]
		if c.Status != "changed" || before == nil || after == nil || dir == "" {
			continue
		}
		var sides [2]*simulate.DisruptionReport
		for j, e := range []*model.Env{before, after} {
			if sides[j], err = disruptOn(ctx, "diff", e, helper, dir, time.Time{}); err != nil {
				return err
			}
		}
		c.Disruption = disruptionChange(sides[0], sides[1])
	}
	return nil
}

// disruptionChange compares two sides' decisions node by node; nil when
// no node's fate differs.
func disruptionChange(before, after *simulate.DisruptionReport) *fleetdiff.DisruptionChange {
	fates := func(r *simulate.DisruptionReport) (map[string]string, fleetdiff.DisruptionSide) {
		out := map[string]string{}
		side := fleetdiff.DisruptionSide{Saved: r.Saved}
		for _, v := range r.Nodes {
			out[v.Name] = fate(r, v)
			switch {
			case v.Command > 0:
				side.Now++
			case slices.ContainsFunc(v.Reasons, func(x simulate.Reason) bool { return x.Kind == "later" }):
				side.Later++
			}
			if v.Drifted != "" {
				side.Drifted++
			}
		}
		return out, side
	}
	a, sa := fates(before)
	b, sb := fates(after)
	out := &fleetdiff.DisruptionChange{Before: sa, After: sb, Prices: after.Prices, Currency: after.Currency}
	for _, v := range after.Nodes {
		if a[v.Name] != b[v.Name] {
			out.Nodes = append(out.Nodes, fleetdiff.NodeFate{Node: v.Name, Before: a[v.Name], After: b[v.Name]})
		}
	}
	if len(out.Nodes) == 0 {
		return nil
	}
	return out
}

// fate is what becomes of a node on one side, in a few words.
func fate(r *simulate.DisruptionReport, v simulate.NodeVerdict) string {
	var s string
	switch {
	case v.Command > 0:
		c := r.Commands[v.Command-1]
		s = fmt.Sprintf("goes now: %s, %s", c.Method, c.Decision)
	default:
		var kinds []string
		for _, x := range v.Reasons {
			if x.Kind == "later" {
				kinds = append(kinds, "goes alone in a later round")
				continue
			}
			if !slices.Contains(kinds, x.Kind) {
				kinds = append(kinds, x.Kind)
			}
		}
		s = "stays: " + strings.Join(kinds, ", ")
		if len(kinds) == 1 && kinds[0] == "goes alone in a later round" {
			s = kinds[0]
		}
	}
	if v.Drifted != "" {
		s += " (drifted: " + v.Drifted + ")"
	}
	return s
}
