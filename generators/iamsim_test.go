package generators_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
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
	sim := reference.Simulator(t)
	node, err := exec.LookPath("node")
	if err != nil {
		reference.Missing(t, "node is not installed: %v", err)
	}
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
				b, err := generators.Render(model.Resolve(p))
				if err != nil {
					t.Fatal(err)
				}
				dir := t.TempDir()
				for path, data := range b.Files {
					if strings.HasPrefix(path, "iam/") && strings.HasSuffix(path, ".json") {
						if err := os.WriteFile(filepath.Join(dir, filepath.Base(path)), data, 0o644); err != nil {
							t.Fatal(err)
						}
					}
				}
				n := model.Resolve(p).Names
				args := []string{filepath.Join(sim, "run.mjs"), "--policies", dir, "--cluster", n.Cluster, "--region", n.Region,
					"--account", n.Account, "--partition", n.Partition, "--node-role-arn", n.NodeRoleARN,
					"--minor", strings.TrimPrefix(m.Minor, "1.")}
				if v.queue {
					args = append(args, "--queue-arn", n.QueueARN)
				} else {
					args = append(args, "--no-interruption")
				}
				out, err := exec.Command(node, args...).CombinedOutput()
				lines := strings.Split(strings.TrimSpace(string(out)), "\n")
				last := lines[len(lines)-1]
				if err != nil || !strings.HasPrefix(last, "iam scenarios: ") || !strings.Contains(last, " passed, 0 failed") {
					t.Fatalf("simulator: %v\n%s", err, out)
				}
			})
		}
	}
}
