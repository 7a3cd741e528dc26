package generators_test

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/karpgen/karpgen/internal/model"

	"github.com/karpgen/karpgen/generators"
	"github.com/karpgen/karpgen/internal/facts"
	"github.com/karpgen/karpgen/internal/oracle"
	"github.com/karpgen/karpgen/internal/profile"
)

// TestIAMSimulator runs the IAM policy simulator (test/iamsim)
// on the controller policies of rendered bundles: every call Karpenter
// makes must be allowed and every misuse refused, for every minor, every
// partition, interruption on and off, and a 100-character cluster name.
// `make test` installs the simulator's packages.
func TestIAMSimulator(t *testing.T) {
	oracle.Simulator(t)
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
		if testing.Short() && i != len(facts.Minors)-1 {
			continue // -short: the newest minor's variants
		}
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
				if out, ok := oracle.Simulate(t, b.Files, e.Names, m.Minor); !ok {
					t.Fatalf("simulator:\n%s", out)
				}
			})
		}
	}
}

// TestControllerCallsAreAllowed: every AWS API operation a release's
// controller code calls (reference/karpenter/<release>/operations.txt,
// found in its Go source by hack/operations) is allowed by the bundle's
// controller policy of that minor, in a request shaped like the
// controller's, with interruption handling on and, where the minor has
// it, node repair's reboot. Without a statement the test names the
// operation it no longer allows.
func TestControllerCallsAreAllowed(t *testing.T) {
	oracle.Simulator(t)
	dir := oracle.Dir(t)
	for i := range facts.Minors {
		if testing.Short() && i != len(facts.Minors)-1 {
			continue // -short: the newest minor
		}
		m := &facts.Minors[i]
		t.Run(m.Minor, func(t *testing.T) {
			t.Parallel()
			p := testProfile(strings.TrimPrefix(m.Reference, "v"), "us-east-1", "ws-calls")
			if m.IAM.RebootForRepair {
				p.Karpenter.AWSFeatureGates = map[string]bool{"rebootForRepair": true}
				p.Karpenter.FeatureGates = map[string]bool{"nodeRepair": true}
			}
			e := model.Resolve(p)
			b, err := generators.Render(e)
			if err != nil {
				t.Fatal(err)
			}
			ops := filepath.Join(dir, m.Reference, "operations.txt")
			if out, ok := oracle.SimulateOperations(t, b.Files, e.Names, m.Minor, ops); !ok {
				t.Fatalf("Karpenter %s calls operations its controller policy does not allow:\n%s", m.Minor, out)
			}
		})
	}
	t.Run("without the deletion statement", func(t *testing.T) {
		m := facts.Newest()
		p := testProfile(strings.TrimPrefix(m.Reference, "v"), "us-east-1", "ws-calls")
		e := model.Resolve(p)
		b, err := generators.Render(e)
		if err != nil {
			t.Fatal(err)
		}
		removed := false
		for path, data := range b.Files {
			var doc map[string]any
			if !strings.HasPrefix(path, "iam/controller-policy") || json.Unmarshal(data, &doc) != nil {
				continue
			}
			var kept []any
			for _, st := range doc["Statement"].([]any) {
				if st.(map[string]any)["Sid"] == "AllowScopedDeletion" {
					removed = true
					continue
				}
				kept = append(kept, st)
			}
			doc["Statement"] = kept
			b.Files[path], _ = json.Marshal(doc)
		}
		if !removed {
			t.Fatal("no AllowScopedDeletion statement to remove")
		}
		out, ok := oracle.SimulateOperations(t, b.Files, e.Names, m.Minor, filepath.Join(dir, m.Reference, "operations.txt"))
		if ok || !strings.Contains(out, "FAIL   operation ec2:TerminateInstances is not allowed") || !strings.Contains(out, "FAIL   operation ec2:DeleteLaunchTemplate is not allowed") {
			t.Errorf("without AllowScopedDeletion the simulator says:\n%s", out)
		}
	})
}
