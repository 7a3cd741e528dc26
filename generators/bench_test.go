package generators

import (
	"testing"

	"github.com/karpgen/karpgen/internal/iam/iampolicy"
	"github.com/karpgen/karpgen/internal/model"

	"github.com/karpgen/karpgen/internal/facts"
	"github.com/karpgen/karpgen/internal/profile"
)

// One benchmark per generator, on a profile that uses every field.
func BenchmarkGenerators(b *testing.B) {
	m := facts.Newest()
	p := generatorProfile(m, profile.AuthIRSA)
	e := model.Resolve(p)
	n := e.Names
	enc := NewEncoder()
	for _, g := range []struct {
		name string
		run  func() any
	}{
		{"NodePools", func() any { return enc.YAMLStream(NodePools(p)) }},
		{"NodeClasses", func() any { return enc.YAMLStream(NodeClasses(e)) }},
		{"HelmValues", func() any { return enc.YAML(HelmValues(e)) }},
		{"ControllerPolicies", func() any {
			var out [][]byte
			for _, cp := range iampolicy.ControllerPolicies(m, n, model.IAMGates{}) {
				out = append(out, encodeJSON(cp.Document))
			}
			return out
		}},
		{"Interruption", func() any {
			return [][]byte{encodeJSON(InterruptionQueuePolicy(n)), encodeJSON(InterruptionRules(m, n))}
		}},
		{"CloudFormation", func() any { return enc.YAML(CloudFormation(e)) }},
		{"Application", func() any { return enc.YAML(Application(e.Application)) }},
		{"Bundle", func() any { b, _ := Render(e); return b }},
	} {
		b.Run(g.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if g.run() == nil {
					b.Fatal("nothing generated")
				}
			}
		})
	}
}
