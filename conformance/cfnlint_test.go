package conformance

import (
	"bytes"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/karpgen/karpgen/generators"
	"github.com/karpgen/karpgen/internal/facts"
	"github.com/karpgen/karpgen/internal/model"
	"github.com/karpgen/karpgen/internal/oracle"
	"github.com/karpgen/karpgen/internal/profile"
)

// partitionRegions are a region of each partition, with its OIDC domain.
var partitionRegions = []struct{ region, partition, oidcDomain string }{
	{"ap-northeast-2", "aws", "amazonaws.com"},
	{"cn-north-1", "aws-cn", "amazonaws.com.cn"},
	{"us-gov-west-1", "aws-us-gov", "amazonaws.com"},
}

// TestCloudFormationPassesCfnLint runs cfn-lint, in the partition's own
// region, over the CloudFormation template of every minor × partition ×
// auth mode, with and without the interruption queue: it must report
// nothing.
func TestCloudFormationPassesCfnLint(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: cfn-lint takes half a minute")
	}
	bin, err := exec.LookPath("cfn-lint")
	if err != nil {
		oracle.Missing(t, "cfn-lint is not installed (pip install cfn-lint): %v", err)
	}
	for _, pr := range partitionRegions {
		t.Run(pr.partition, func(t *testing.T) {
			dir := t.TempDir()
			var files []string
			for i := range facts.Minors {
				for _, auth := range []string{profile.AuthPodIdentity, profile.AuthIRSA} {
					for _, queue := range []bool{true, false} {
						p := richProfile(variant{&facts.Minors[i], auth, queue})
						p.Cluster.Region, p.Cluster.Partition = pr.region, pr.partition
						p.Cluster.OIDCIssuer = fmt.Sprintf("https://oidc.eks.%s.%s/id/EXAMPLE", pr.region, pr.oidcDomain)
						for name, np := range p.NodePools {
							np.Zones = []string{pr.region + "a", pr.region + "b"}
							p.NodePools[name] = np
						}
						if queue {
							// Half the templates carry the organization's
							// permissions boundary on both roles.
							p.IAM.PermissionsBoundary = fmt.Sprintf("arn:%s:iam::%s:policy/PlatformBoundary", pr.partition, p.Cluster.AccountID)
						}
						b, err := generators.Render(model.Resolve(p))
						if err != nil {
							t.Fatal(err)
						}
						if queue && strings.Count(string(b.Files["iam/cloudformation.yaml"]), "PermissionsBoundary: arn:") != 2 {
							t.Errorf("%s: the boundary is not on both roles", p.Karpenter.Version)
						}
						if len(b.Files["iam/cloudformation.yaml"]) == 0 {
							t.Fatalf("%s: the bundle has no iam/cloudformation.yaml", p.Karpenter.Version)
						}
						file := filepath.Join(dir, fmt.Sprintf("%s-%s-queue-%v.yaml", p.Karpenter.Version, auth, queue))
						if err := os.WriteFile(file, b.Files["iam/cloudformation.yaml"], 0o644); err != nil {
							t.Fatal(err)
						}
						files = append(files, file)
						if queue {
							continue
						}
						// The same environment adopting both roles and the
						// queue: the template creates none of them, and
						// attaches the controller policies to the existing
						// role.
						p.Karpenter.ExistingControllerRole, p.Karpenter.ExistingNodeRole = "platform-karpenter", "eks-nodegroup-role"
						p.Karpenter.NodeRole, p.Karpenter.ControllerRole = "", ""
						p.Karpenter.InterruptionQueue, p.Karpenter.QueueName, p.Karpenter.ExistingInterruptionQueue = true, "", "platform-interruptions"
						for name, nc := range p.NodeClasses {
							if nc.Role != "" {
								nc.Role = "eks-nodegroup-role"
								p.NodeClasses[name] = nc
							}
						}
						b, err = generators.Render(model.Resolve(p))
						if err != nil {
							t.Fatal(err)
						}
						if tmpl := string(b.Files["iam/cloudformation.yaml"]); strings.Contains(tmpl, "AWS::IAM::Role") || strings.Contains(tmpl, "AWS::SQS::Queue") || !strings.Contains(tmpl, "- platform-karpenter") {
							t.Errorf("%s: adopting the roles and the queue, the template still creates one, or attaches no policy:\n%s", p.Karpenter.Version, tmpl)
						}
						file = filepath.Join(dir, fmt.Sprintf("%s-%s-adopted.yaml", p.Karpenter.Version, auth))
						if err := os.WriteFile(file, b.Files["iam/cloudformation.yaml"], 0o644); err != nil {
							t.Fatal(err)
						}
						files = append(files, file)
						// Beside the adopted node role, two node roles
						// the template creates, one with a policy of its
						// own and a name that is no logical ID.
						p.Karpenter.NodeRoles = map[string]profile.NodeRole{
							"gpu-s3-nodes":  {Policies: []string{"arn:" + pr.partition + ":iam::aws:policy/AmazonS3ReadOnlyAccess"}},
							"ml.nodes@team": {},
						}
						p.NodeClasses = maps.Clone(p.NodeClasses)
						for _, role := range []string{"gpu-s3-nodes", "ml.nodes@team"} {
							nc := p.NodeClasses[slices.Sorted(maps.Keys(p.NodeClasses))[0]]
							nc.Role, nc.InstanceProfile = role, ""
							p.NodeClasses[role] = nc
						}
						b, err = generators.Render(model.Resolve(p))
						if err != nil {
							t.Fatal(err)
						}
						if tmpl := string(b.Files["iam/cloudformation.yaml"]); strings.Count(tmpl, "Type: AWS::IAM::Role\n") != 2 {
							t.Errorf("%s: two node roles to create, but the template creates %d roles:\n%s", p.Karpenter.Version, strings.Count(tmpl, "Type: AWS::IAM::Role\n"), tmpl)
						}
						file = filepath.Join(dir, fmt.Sprintf("%s-%s-roles.yaml", p.Karpenter.Version, auth))
						if err := os.WriteFile(file, b.Files["iam/cloudformation.yaml"], 0o644); err != nil {
							t.Fatal(err)
						}
						files = append(files, file)
					}
				}
			}
			var out bytes.Buffer
			cmd := exec.Command(bin, append([]string{"--format", "parseable", "--regions", pr.region, "--"}, files...)...)
			cmd.Stdout, cmd.Stderr = &out, &out
			err := cmd.Run()
			if report := strings.TrimSpace(out.String()); err != nil || report != "" {
				t.Errorf("cfn-lint over %d templates: %v\n%s", len(files), err, report)
			}
		})
	}
}
