package iameval_test

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/karpgen/karpgen/internal/iameval"
	"github.com/karpgen/karpgen/internal/oracle"
)

// policiesOf reads a generated case's documents.
func policiesOf(t testing.TB, c Case) (iameval.Policies, iameval.Request) {
	t.Helper()
	parse := func(name string, doc map[string]any, rcp bool) *iameval.Policy {
		b, _ := json.Marshal(doc)
		p, err := iameval.Parse(name, b, rcp)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return p
	}
	var p iameval.Policies
	for i, d := range c.Identity {
		p.Identity = append(p.Identity, parse(fmt.Sprintf("identity-%d", i), d, false))
	}
	if c.Boundary != nil {
		p.Boundary = parse("boundary", c.Boundary, false)
	}
	for i, level := range c.SCPs {
		l := iameval.Level{Name: fmt.Sprintf("level-%d", i)}
		for j, d := range level {
			l.Policies = append(l.Policies, parse(fmt.Sprintf("scp-%d-%d", i, j), d, false))
		}
		p.SCPs = append(p.SCPs, l)
	}
	for i, level := range c.RCPs {
		l := iameval.Level{Name: fmt.Sprintf("level-%d", i)}
		for j, d := range level {
			l.Policies = append(l.Policies, parse(fmt.Sprintf("rcp-%d-%d", i, j), d, true))
		}
		p.RCPs = append(p.RCPs, l)
	}
	return p, iameval.Request{Action: c.Request.Action, Resource: c.Request.Resource, Context: c.Request.Context}
}

// TestAgreesWithTheSimulator: on thousands of generated policy sets and
// requests (wildcards, every operator family, IfExists, set qualifiers,
// NotAction and NotResource, policy variables, SCP levels, a boundary,
// RCPs), the evaluator decides as the IAM policy simulator
// (@cloud-copilot/iam-simulate, test/iamsim) does, on every case.
func TestAgreesWithTheSimulator(t *testing.T) {
	n := 6000
	if testing.Short() {
		n = 600 // the first tenth of the same cases
	}
	agreeOn(t, Generate(1, n))
}

// FuzzAgreesWithTheSimulator grows the differential test: each input
// seeds a batch of generated cases (`go test -fuzz FuzzAgreesWithTheSimulator
// ./internal/iameval`; seeds 2 and 3 with 10,000 cases each agree too).
func FuzzAgreesWithTheSimulator(f *testing.F) {
	f.Add(uint64(2))
	f.Fuzz(func(t *testing.T, seed uint64) {
		agreeOn(t, Generate(seed, 25))
	})
}

// agreeOn runs the simulator on the cases and compares every decision.
func agreeOn(t *testing.T, cases []Case) {
	t.Helper()
	// Both sides see the keys AWS puts in every request, as the
	// evaluator adds them: the simulator is given them outright.
	at := time.Date(2026, 12, 6, 12, 0, 0, 0, time.UTC)
	for i, c := range cases {
		r := iameval.Request{Action: c.Request.Action, Resource: c.Request.Resource, Context: c.Request.Context, At: at}
		cases[i].Request.Context = r.WithAlwaysPresent().Context
	}
	oracle := oracle.Decide(t, cases)
	if len(oracle) != len(cases) {
		t.Fatalf("the simulator answered %d of %d cases", len(oracle), len(cases))
	}
	agree, disagree := 0, 0
	for i, c := range cases {
		p, r := policiesOf(t, c)
		res, err := iameval.Evaluate(p, r)
		got := string(res.Decision)
		if err != nil {
			got = "ERROR " + err.Error()
		}
		if got != oracle[i] {
			disagree++
			if disagree <= 5 {
				js, _ := json.MarshalIndent(c, "", "  ")
				t.Errorf("case %d: evaluator %s, simulator %s\n%s", i, got, oracle[i], js)
			}
			continue
		}
		agree++
	}
	if len(cases) > 100 {
		t.Logf("%d cases: %d agree, %d disagree", len(cases), agree, disagree)
	}
	if disagree > 0 {
		t.Errorf("%d of %d cases disagree", disagree, len(cases))
	}
}
