package generators_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/karpgen/karpgen/internal/model"

	"github.com/karpgen/karpgen/generators"
	"github.com/karpgen/karpgen/generators/facts"
	"github.com/karpgen/karpgen/internal/profile"
	"github.com/karpgen/karpgen/internal/reference"
)

// TestIAMSimulator runs the IAM policy simulator (test/iamsim)
// on the controller policies of rendered bundles: every call Karpenter
// makes must be allowed and every misuse refused, for every minor, every
// partition, interruption on and off, and a 100-character cluster name.
// `make test` installs the simulator's packages.
func TestIAMSimulator(t *testing.T) {
	reference.Simulator(t)
	type variant struct {
		region, cluster string
		queue           bool
		auth            string
	}
	var variants []variant
	for _, region := range regions {
		for _, queue := range []bool{true, false} {
			variants = append(variants, variant{region, "ws-sim", queue, profile.AuthPodIdentity})
		}
	}
	variants = append(variants, variant{"ap-northeast-2", "ws-sim", true, profile.AuthIRSA},
		variant{"eu-west-1", strings.Repeat("k", 100), true, profile.AuthIRSA})
	for i := range facts.Minors {
		m := &facts.Minors[i]
		for _, v := range variants {
			t.Run(fmt.Sprintf("%s/%s/%s/queue=%v/cluster=%d", m.Minor, v.region, v.auth, v.queue, len(v.cluster)), func(t *testing.T) {
				t.Parallel()
				p := testProfile(strings.TrimPrefix(m.Reference, "v"), v.region, v.cluster)
				p.Karpenter.InterruptionQueue, p.Karpenter.Auth = v.queue, v.auth
				e := model.Resolve(p)
				b, err := generators.Render(e)
				if err != nil {
					t.Fatal(err)
				}
				if out, ok := reference.Simulate(t, b.Files, e.Names, m.Minor); !ok {
					t.Fatalf("simulator:\n%s", out)
				}
			})
		}
	}
}
