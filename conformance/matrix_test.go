package conformance

import (
	"fmt"
	"strings"
	"testing"

	"github.com/karpgen/karpgen/internal/model"

	utiljson "k8s.io/apimachinery/pkg/util/json"
	"sigs.k8s.io/yaml"

	"github.com/karpgen/karpgen/generators"
	"github.com/karpgen/karpgen/internal/facts"
	"github.com/karpgen/karpgen/internal/profile"
)

// variant is one cell of the matrix: minor × auth × interruption.
type variant struct {
	minor *facts.Minor
	auth  string
	queue bool
}

func (v variant) String() string {
	return fmt.Sprintf("%s/%s/queue=%v", v.minor.Minor, v.auth, v.queue)
}

func matrix() []variant {
	var out []variant
	for _, m := range minors() {
		for _, auth := range []string{profile.AuthPodIdentity, profile.AuthIRSA} {
			for _, queue := range []bool{true, false} {
				out = append(out, variant{m, auth, queue})
			}
		}
	}
	return out
}

// minors are the minors the tests go over: every one, or under -short
// the oldest and the newest, whose artifacts differ most (make test runs
// without -short, so every minor is held before anything lands).
func minors() []*facts.Minor {
	var out []*facts.Minor
	for i := range facts.Minors {
		if !testing.Short() || i == 0 || i == len(facts.Minors)-1 {
			out = append(out, &facts.Minors[i])
		}
	}
	return out
}

// richProfile uses most of what a profile can say, so the CRDs and the
// chart see every field karpgen emits.
func richProfile(v variant) *profile.Profile {
	one, two, hundred := 1, 2, 100
	yes := true
	gates := map[string]bool{}
	for _, g := range v.minor.FeatureGates {
		gates[g.Name] = !g.Default
	}
	var zonal *bool
	if v.minor.HasSetting("enableZonalShift") {
		zonal = &yes
	}
	return &profile.Profile{
		Env: "conformance",
		Cluster: profile.Cluster{
			Name: "ws-conformance", Region: "ap-northeast-2", Partition: "aws", AccountID: "491085395789",
			KubernetesVersion: v.minor.Kubernetes[1], OIDCIssuer: "https://oidc.eks.ap-northeast-2.amazonaws.com/id/EXAMPLE",
		},
		Karpenter: profile.Karpenter{
			Version: strings.TrimPrefix(v.minor.Reference, "v"), Namespace: "karpenter", ServiceAccount: "karpenter-sa",
			Auth: v.auth, InterruptionQueue: v.queue, NodeAccess: profile.AccessEntry, FeatureGates: gates, ZonalShift: zonal,
			Controller: profile.Controller{
				NodeGroup: "addon", Replicas: 3, LogLevel: "debug",
				Resources: profile.Resources{
					Requests: map[string]any{"cpu": "500m", "memory": "1Gi"},
					Limits:   map[string]any{"memory": "2Gi"},
				},
			},
		},
		NodeGroups: map[string]profile.NodeGroup{
			"system": {Labels: map[string]string{"nodegroup": "system"}},
			"addon": {
				Labels: map[string]string{"nodegroup": "addon"},
				Taints: []profile.Taint{{Key: "node-role.kubernetes.io/addon", Effect: "NoSchedule"}, {Key: "dedicated", Value: "addon", Effect: "NoExecute"}},
			},
		},
		NodeClasses: map[string]profile.NodeClass{
			"default": {
				AMI:                        profile.AMI{Alias: "al2023@latest"},
				SubnetSelectorTerms:        []profile.SelectorTerm{{Tags: map[string]string{"karpenter.sh/discovery": "ws-conformance"}}},
				SecurityGroupSelectorTerms: []profile.SelectorTerm{{Tags: map[string]string{"karpenter.sh/discovery": "ws-conformance"}}, {ID: "sg-0123456789abcdef0"}},
				BlockDevices: []profile.BlockDevice{{
					DeviceName: "/dev/xvda", VolumeSize: "100Gi", VolumeType: "gp3", Encrypted: true, DeleteOnTermination: true,
					IOPS: ptr(3000), Throughput: ptr(125), RootVolume: &yes,
				}},
				MetadataOptions:    profile.MetadataOptions{HTTPEndpoint: "enabled", HTTPProtocolIPv6: "disabled", HTTPPutResponseHopLimit: 2, HTTPTokens: "required"},
				Tags:               map[string]string{"team": "platform"},
				UserData:           "#!/bin/bash\necho hello\n",
				DetailedMonitoring: &yes,
				Kubelet: &profile.Kubelet{
					MaxPods: ptr(110), SystemReserved: map[string]string{"cpu": "100m", "memory": "100Mi"},
					EvictionHard: map[string]string{"memory.available": "5%"},
					EvictionSoft: map[string]string{"memory.available": "10%"}, EvictionSoftGracePeriod: map[string]string{"memory.available": "1m"},
					ImageGCHighThresholdPercent: ptr(85), ImageGCLowThresholdPercent: ptr(80),
				},
			},
			"bottlerocket": {
				AMI:                        profile.AMI{IDs: []string{"ami-0123456789abcdef0"}, Family: "Bottlerocket"},
				InstanceProfile:            "KarpenterNodeInstanceProfile",
				SubnetSelectorTerms:        []profile.SelectorTerm{{ID: "subnet-0123456789abcdef0"}},
				SecurityGroupSelectorTerms: []profile.SelectorTerm{{Name: "nodes"}},
				MetadataOptions:            profile.MetadataOptions{HTTPEndpoint: "enabled", HTTPProtocolIPv6: "disabled", HTTPPutResponseHopLimit: 1, HTTPTokens: "required"},
			},
		},
		NodePools: map[string]profile.NodePool{
			"app": {
				NodeClass: "default", Labels: map[string]string{"nodegroup": "app"}, Annotations: map[string]string{"example.com/owner": "platform"},
				Taints:        []profile.Taint{{Key: "nodegroup", Value: "app", Effect: "NoSchedule"}},
				StartupTaints: []profile.Taint{{Key: "example.com/agent-not-ready", Effect: "NoExecute"}},
				Arch:          []string{"amd64", "arm64"}, OS: []string{"linux"}, CapacityTypes: []string{"spot", "on-demand"},
				InstanceCategories: []string{"c", "m", "r"}, InstanceGenerationAbove: &two, InstanceCPU: []int{4, 8, 16},
				Zones: []string{"ap-northeast-2a", "ap-northeast-2c"},
				Requirements: []profile.Requirement{
					{Key: "karpenter.k8s.aws/instance-family", Operator: "In", Values: []string{"m5", "m6i", "c6i"}, MinValues: &two},
					{Key: "karpenter.k8s.aws/instance-size", Operator: "NotIn", Values: []string{"metal"}},
				},
				Limits: map[string]any{"cpu": 1000, "memory": "1000Gi"}, Weight: &hundred,
				Disruption: profile.Disruption{
					ConsolidationPolicy: "WhenEmptyOrUnderutilized", ConsolidateAfter: "1m",
					Budgets: []profile.Budget{{Nodes: "10%"}, {Nodes: "0", Schedule: "0 9 * * mon-fri", Duration: "8h", Reasons: []string{"Drifted"}}},
				},
				ExpireAfter: "720h", TerminationGracePeriod: "48h",
			},
			"batch": {
				NodeClass: "bottlerocket", Arch: []string{"amd64"}, OS: []string{"linux"}, CapacityTypes: []string{"on-demand"},
				InstanceTypes: []string{"m5.large", "m5.xlarge"}, Weight: &one,
				Disruption:  profile.Disruption{ConsolidationPolicy: "WhenEmpty", ConsolidateAfter: "Never", Budgets: []profile.Budget{{Nodes: "1"}}},
				ExpireAfter: "Never",
			},
		},
	}
}

func ptr[T any](v T) *T { return &v }

func render(t *testing.T, v variant) *model.Bundle {
	t.Helper()
	b, err := generators.Render(model.Resolve(richProfile(v)))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// objects splits a YAML stream into objects.
func objects(t *testing.T, data []byte) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, doc := range strings.Split(string(data), "\n---\n") {
		// As the API server decodes: integers stay int64.
		js, err := yaml.YAMLToJSON([]byte(doc))
		if err != nil {
			t.Fatalf("%v\n%s", err, doc)
		}
		var o map[string]any
		if err := utiljson.Unmarshal(js, &o); err != nil {
			t.Fatalf("%v\n%s", err, doc)
		}
		if o != nil {
			out = append(out, o)
		}
	}
	return out
}
