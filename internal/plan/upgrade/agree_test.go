package upgrade_test

import (
	"encoding/json"
	"testing"

	"github.com/karpgen/karpgen/generators"
	"github.com/karpgen/karpgen/internal/fleetdiff"
	"github.com/karpgen/karpgen/internal/model"
	"github.com/karpgen/karpgen/internal/plan/upgrade"
)

// TestUpgradeAndDiffTellTheSameChange: for every adjacent pair of v1
// minors, what a hop of the plan says the bundle does (objects, IAM
// documents, Helm values) is what karpgen diff reports when the
// profile's version moves from one to the other.
func TestUpgradeAndDiffTellTheSameChange(t *testing.T) {
	e := prodEnv(t)
	at := func(version string) (*model.Env, *model.Bundle) {
		cp := *e.Profile
		cp.Karpenter.Version = version
		env := model.Resolve(&cp)
		b, err := generators.Render(env)
		if err != nil {
			t.Fatal(err)
		}
		return env, b
	}
	compared := 0
	// The adjacent v1 pairs: neither the move to v1 (first) nor the two
	// long moves (last).
	for _, pair := range pairs()[1 : len(pairs())-2] {
		t.Run(pair[0]+"-"+pair[1], func(t *testing.T) {
			p, err := upgrade.New(e, upgrade.Options{From: pair[0], To: pair[1]})
			if err != nil {
				t.Fatal(err)
			}
			if len(p.Hops) != 1 {
				t.Fatalf("%d hops, want 1", len(p.Hops))
			}
			hop := p.Hops[0]
			was, base := at(pair[0])
			env, head := at(pair[1])
			d := fleetdiff.NewDiffer("base", fleetdiff.NewSide([]*model.Env{was}, map[string]*model.Bundle{e.Name: base}),
				map[string]*model.Env{e.Name: env}, []string{e.Name})
			if err := d.Put(head); err != nil {
				t.Fatal(err)
			}
			r, err := d.Report()
			if err != nil {
				t.Fatal(err)
			}
			if len(r.Changes) != 1 {
				t.Fatalf("diff reports %d changed environments, want 1", len(r.Changes))
			}
			c := r.Changes[0]
			for what, sides := range map[string][2]any{
				"objects": {hop.Objects, c.Objects}, "IAM": {hop.Policies, c.IAM}, "Helm values": {hop.Helm, c.Helm},
			} {
				a, _ := json.Marshal(sides[0])
				b, _ := json.Marshal(sides[1])
				if string(a) != string(b) {
					t.Errorf("%s: upgrade says\n%s\ndiff says\n%s", what, a, b)
				}
			}
			if len(c.IAM)+len(c.Helm)+len(c.Objects) > 0 {
				compared++
			}
		})
	}
	// The pairs must differ somewhere, or the agreement says nothing.
	if compared < 10 {
		t.Errorf("only %d pairs change the bundle beyond its files", compared)
	}
}
