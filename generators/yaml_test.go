package generators

import (
	"strings"
	"testing"

	"github.com/karpgen/karpgen/internal/model"

	yaml "go.yaml.in/yaml/v2"

	"github.com/karpgen/karpgen/internal/facts"
	"github.com/karpgen/karpgen/internal/profile"
)

func sameAsGoYAML(t *testing.T, name string, v any) {
	t.Helper()
	want, err := yaml.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	if got := NewEncoder().YAML(v); string(got) != string(want) {
		gl, wl := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
		for i := range min(len(gl), len(wl)) {
			if gl[i] != wl[i] {
				t.Errorf("%s: emitter differs from go-yaml at line %d:\n got %q\nwant %q", name, i+1, gl[i], wl[i])
				return
			}
		}
		t.Errorf("%s: emitter differs from go-yaml in length: %d and %d lines", name, len(gl), len(wl))
	}
}

// TestEmitterMatchesGoYAML: the emitter writes what go-yaml writes, for
// strings YAML treats specially and for every object the generators make.
func TestEmitterMatchesGoYAML(t *testing.T) {
	tricky := []string{"", " lead", "trail ", "yes", "No", "ON", "y", "1", "1.5", "0x1F", "1e3", "~", "null", "Null",
		"a: b", "a #b", "#x", "*x", "&a", "!t", "%p", "@a", "`a", "-", "- a", "?", ":", "a:", "[a]", "{a}", "a,b", "a b",
		"multi\nline", "multi\nline\n", "tab\tx", "ünïcødé", "2001-12-14", "1:20", "=", "<<", `"q"`, "'s'", "trailing\n\n",
		"  indented\nblock", "$values/out/dev/helm/karpenter-values.yaml", "10%", "100Gi", "90s", "*", "arn:aws:ec2:r:*:subnet/*",
		"#!/bin/bash\necho hello\n", "a\n\nb", ".inf", "-.5", "+1", "0o17", "true", "FALSE", "key=value", "x:y:z", "Fn::GetAtt",
		"{{ .name }}", "spec:\n  {{- toYaml .spec | nindent 2 }}\n", "C:\\path", "very long " + strings.Repeat("word ", 40)}
	// Keys as labels, tags and conditions have them. (For keys of other
	// characters go-yaml's own order depends on map iteration order.)
	keys := []string{"team", "cost-center", "Cost Center", "m5", "m10", "m5d", "a1b2", "a10b", "node-role.kubernetes.io/addon",
		"karpenter.sh/discovery", "aws:RequestTag/kubernetes.io/cluster/ws-dev", "Fn::GetAtt", "x.y/z-1", "x.y/z-10", "x.y/z-9",
		"kubernetes.io/cluster/ws-100", "kubernetes.io/cluster/ws-20", "yes", "No", "true", "null", "y", "Name", "name", "ec2:CreateAction"}
	m := map[string]any{}
	for i, k := range keys {
		m[k] = tricky[i%len(tricky)]
	}
	var list []any
	for i, s := range tricky {
		list = append(list, s, map[string]any{"k": s, "n": i})
	}
	sameAsGoYAML(t, "tricky strings", map[string]any{
		"map": m, "list": list, "nested": []any{[]any{"a", "b"}, []any{}, map[string]any{}, map[string]string{"x": "1"}},
		"empty": map[string]any{"m": map[string]any{}, "l": []any{}, "s": map[string]string{}}, "ints": []any{0, -1, 42}, "bools": []any{true, false},
	})

	sameAsGoYAML(t, "complex key", map[string]any{"a\nb": 1, "c": "d"})
	sameAsGoYAML(t, "long key", map[string]any{strings.Repeat("k", 129): 1})

	for i := range facts.Minors {
		mi := &facts.Minors[i]
		for _, auth := range []string{profile.AuthIRSA, profile.AuthPodIdentity} {
			p := generatorProfile(mi, auth)
			e := model.Resolve(p)
			n := e.Names
			for _, doc := range append(NodePools(p), NodeClasses(e)...) {
				sameAsGoYAML(t, mi.Minor+" manifest", doc)
			}
			sameAsGoYAML(t, mi.Minor+" values", HelmValues(e))
			sameAsGoYAML(t, mi.Minor+" cloudformation", CloudFormation(e))
			sameAsGoYAML(t, mi.Minor+" application", Application(e.Application))
			sameAsGoYAML(t, mi.Minor+" aws-auth", AWSAuthMapRoles(n, true))
			sameAsGoYAML(t, mi.Minor+" applicationset", ApplicationSet([]*model.Application{e.Application}))
			for _, doc := range Headroom(e) {
				sameAsGoYAML(t, mi.Minor+" headroom", doc)
			}
			for _, a := range []string{"metrics-server", "cert-manager"} {
				sameAsGoYAML(t, mi.Minor+" addon "+a, addonValues(p.NodeGroups["addon"], helmAddonKeys[a]))
			}
		}
	}
}

// generatorProfile uses every field the generators emit.
func generatorProfile(m *facts.Minor, auth string) *profile.Profile {
	one, yes := 1, true
	return &profile.Profile{
		Env: "dev",
		Cluster: profile.Cluster{Name: "ws-dev", Region: "ap-northeast-2", Partition: "aws", AccountID: "491085395789",
			KubernetesVersion: "1.32", OIDCIssuer: "https://oidc.eks.ap-northeast-2.amazonaws.com/id/X"},
		Karpenter: profile.Karpenter{Version: strings.TrimPrefix(m.Reference, "v"), Namespace: "karpenter", ServiceAccount: "karpenter",
			Auth: auth, InterruptionQueue: true, NodeAccess: profile.AccessEntry, FeatureGates: map[string]bool{},
			Controller: profile.Controller{NodeGroup: "addon", Replicas: 2, LogLevel: "info",
				Resources: profile.Resources{Requests: map[string]any{"cpu": "1", "memory": "1Gi"}, Limits: map[string]any{"memory": "1Gi"}}}},
		NodeGroups: map[string]profile.NodeGroup{"addon": {Labels: map[string]string{"nodegroup": "addon"},
			Taints: []profile.Taint{{Key: "dedicated", Value: "addon", Effect: "NoSchedule"}}}},
		NodeClasses: map[string]profile.NodeClass{"default": {
			AMI: profile.AMI{Alias: "al2023@latest"}, UserData: "#!/bin/bash\necho 'hi: there'\n\nexit 0\n",
			Tags: map[string]string{"team": "platform", "cost-center": "1234", "empty": ""}, DetailedMonitoring: &yes,
			SubnetSelectorTerms:        []profile.SelectorTerm{{Tags: map[string]string{"karpenter.sh/discovery": "ws-dev"}}},
			SecurityGroupSelectorTerms: []profile.SelectorTerm{{ID: "sg-1"}},
			BlockDevices:               []profile.BlockDevice{{DeviceName: "/dev/xvda", VolumeSize: "100Gi", VolumeType: "gp3", IOPS: &one}},
			Kubelet:                    &profile.Kubelet{MaxPods: &one, SystemReserved: map[string]string{"cpu": "100m"}},
			MetadataOptions:            profile.MetadataOptions{HTTPEndpoint: "enabled", HTTPProtocolIPv6: "disabled", HTTPPutResponseHopLimit: 1, HTTPTokens: "required"},
		}},
		NodePools: map[string]profile.NodePool{"app": {
			NodeClass: "default", Labels: map[string]string{"nodegroup": "app"}, Annotations: map[string]string{"a": "yes"},
			Taints: []profile.Taint{{Key: "nodegroup", Value: "app", Effect: "NoSchedule"}}, Arch: []string{"amd64"}, OS: []string{"linux"},
			CapacityTypes: []string{"spot"}, InstanceCPU: []int{4, 8}, Zones: []string{"ap-northeast-2a"},
			Requirements: []profile.Requirement{{Key: "example.com/x", Operator: "Exists"}}, Limits: map[string]any{"cpu": 40, "memory": "160Gi"},
			Weight: &one, Disruption: profile.Disruption{ConsolidationPolicy: "WhenEmpty", ConsolidateAfter: "90s",
				Budgets: []profile.Budget{{Nodes: "10%"}, {Nodes: "0", Schedule: "0 9 * * mon-fri", Duration: "8h", Reasons: []string{"Drifted"}}}},
			ExpireAfter: "720h", Headroom: &profile.Headroom{Replicas: 2, CPU: "500m", Memory: "1Gi", Image: "registry.k8s.io/pause:3.10"},
		}},
		ArgoCD: &profile.ArgoCD{RepoURL: "https://git.example.com/x.git", TargetRevision: "main", Path: ".", Namespace: "argocd", Project: "default"},
	}
}

// FuzzEmitterMatchesGoYAML: for any key, value and list item, in every
// place a generated object puts strings, the emitter writes what go-yaml
// writes.
func FuzzEmitterMatchesGoYAML(f *testing.F) {
	for _, s := range []string{"", "yes", "a: b", "multi\nline\n", "  lead", "#!/bin/bash\necho hi\n", "10%", "ünï", "{{ .x }}", strings.Repeat("w ", 70),
		"1Gi", "10%", "1.15.2", "1.5", "8", "0755", "09", "1e3", "1e", "0x", "0x1F", "0b", "0b101", "1_000", "12:30", "2012-10-17", "1.2.3Gi", "5.",
		"EC2 Spot Instance Interruption Warning", "a b: c", "a  b", "a b ", "On off", "y n", "see #x", "a, b", "a - b",
		strings.Repeat("word ", 15) + "end", strings.Repeat("ab ", 24) + "z", strings.Repeat("abc ", 18) + "wxyz"} {
		f.Add(s, s, s)
	}
	f.Fuzz(func(t *testing.T, key, value, item string) {
		doc := map[string]any{
			"top":   value,
			"map":   map[string]any{key: value},
			"tags":  map[string]string{key: item},
			"list":  []any{item, map[string]any{key: value}, []any{item}},
			"strs":  []string{value, item},
			"deep":  map[string]any{"a": map[string]any{"b": []any{map[string]any{key: []any{value}}}}},
			"count": 3,
		}
		want, err := yaml.Marshal(doc)
		if err != nil {
			t.Skip("go-yaml refuses it too")
		}
		if got := NewEncoder().YAML(doc); string(got) != string(want) {
			t.Errorf("emitter differs from go-yaml:\n got %q\nwant %q", got, want)
		}
	})
}
