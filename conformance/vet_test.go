package conformance

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/karpgen/karpgen/internal/model"

	"github.com/karpgen/karpgen/generators"
	"github.com/karpgen/karpgen/internal/diag"
	"github.com/karpgen/karpgen/internal/facts"
	"github.com/karpgen/karpgen/internal/lint"
	"github.com/karpgen/karpgen/internal/load"
	"github.com/karpgen/karpgen/internal/oracle"
	"github.com/karpgen/karpgen/internal/profile"
)

// caseProfile is a valid environment whose fields a case may override.
const caseProfile = `package profiles

environments: dev: {
	cluster: {name: "ws-dev", region: "ap-northeast-2", accountID: "491085395789", kubernetesVersion: "KUBE"}
	karpenter: {version: "VERSION", auth: "irsa", controller: nodeGroup: "system"}
	cluster: oidcIssuer: "https://oidc.eks.ap-northeast-2.amazonaws.com/id/X"
	nodeGroups: system: labels: nodegroup: "system"
	nodeClasses: default: ami: alias: *"al2023@latest" | string
	nodePools: app: {
		instanceFamilies: ["m5", "c5"]
		instanceCPU: [4, 8, 16, 32, 48]
	}
	OVERRIDE
}
`

// TestVetRefusesWhatTheCRDsRefuse: for mistakes a profile can make that
// the CRDs' schema or CEL rules refuse, karpgen vet refuses them first,
// with the rule named here. Each case is rendered without vet and shown
// to the CRD, so a case that the CRD accepted would fail the test too.
func TestVetRefusesWhatTheCRDsRefuse(t *testing.T) {
	oracle.Dir(t)
	cases := []struct {
		name, override, rule, file string
		// crdAccepts are the minors whose CRD lets the mistake through
		// (a real API server would store it, and Karpenter fail later).
		crdAccepts []string
	}{
		{"alias format", `nodeClasses: default: ami: alias: "al2023"`, "value/ami", "ec2nodeclasses.yaml", nil},
		{"windows pinned", `nodeClasses: default: ami: alias: "windows2022@v1"`, "value/ami", "ec2nodeclasses.yaml", nil},
		{"volume size", `nodeClasses: default: blockDevices: [{deviceName: "/dev/xvda", volumeSize: "100GB"}]`, "value/quantity", "ec2nodeclasses.yaml", nil},
		{"restricted tag", `nodeClasses: default: tags: "eks:eks-cluster-name": "x"`, "value/node-class", "ec2nodeclasses.yaml", nil},
		// From 1.15 the CRD takes kubelet as an open map: the controller
		// refuses these at run time (ValidationSucceeded=False, no node
		// launches), and the API server stores them.
		{"soft eviction without grace", `nodeClasses: default: kubelet: evictionSoft: "memory.available": "10%"`, "value/node-class", "ec2nodeclasses.yaml", minorsFrom("1.15")},
		{"gc thresholds", `nodeClasses: default: kubelet: {imageGCHighThresholdPercent: 50, imageGCLowThresholdPercent: 60}`, "value/node-class", "ec2nodeclasses.yaml", minorsFrom("1.15")},
		// The 1.0 pattern ^(([0-9]+(s|m|h))+)|(Never)$ only anchors a prefix.
		// The schema refuses these (#Duration) before any rule runs.
		{"consolidateAfter", `nodePools: app: disruption: consolidateAfter: "90sec"`, "schema", "nodepools.yaml", []string{"1.0"}},
		{"expireAfter", `nodePools: app: expireAfter: "30d"`, "schema", "nodepools.yaml", nil},
		{"budget duration", `nodePools: app: disruption: budgets: [{nodes: "1", schedule: "@daily", duration: "30s"}]`, "schema", "nodepools.yaml", nil},
		{"budget nodes", `nodePools: app: disruption: budgets: [{nodes: "110%"}]`, "value/budget", "nodepools.yaml", nil},
		{"budget schedule alone", `nodePools: app: disruption: budgets: [{nodes: "1", schedule: "@daily"}]`, "value/budget", "nodepools.yaml", nil},
		{"v1beta1 policy", `nodePools: app: disruption: consolidationPolicy: "WhenUnderutilized"`, "value/consolidation-policy", "nodepools.yaml", nil},
		{"weight", `nodePools: app: weight: 0`, "value/weight", "nodepools.yaml", nil},
		{"minValues", `nodePools: app: requirements: [{key: "karpenter.k8s.aws/instance-family", operator: "In", values: ["m5"], minValues: 2}]`, "value/requirement", "nodepools.yaml", nil},
		{"Gt not a number", `nodePools: app: requirements: [{key: "karpenter.k8s.aws/instance-cpu", operator: "Gt", values: ["four"]}]`, "value/requirement", "nodepools.yaml", nil},
		{"In without values", `nodePools: app: requirements: [{key: "karpenter.k8s.aws/instance-size", operator: "In"}]`, "value/requirement", "nodepools.yaml", nil},
		{"restricted label", `nodePools: app: labels: "karpenter.sh/team": "a"`, "label/restricted", "nodepools.yaml", nil},
		{"hostname requirement", `nodePools: app: requirements: [{key: "kubernetes.io/hostname", operator: "Exists"}]`, "label/restricted", "nodepools.yaml", nil},
		{"taint effect", `nodePools: app: taints: [{key: "a", effect: "NoScheduled"}]`, "taint/syntax", "nodepools.yaml", nil},
		{"subnet id with tags", `nodeClasses: default: subnetSelectorTerms: [{id: "subnet-1", tags: a: "b"}]`, "value/selector-terms", "ec2nodeclasses.yaml", nil},
		{"empty security group terms", `nodeClasses: default: securityGroupSelectorTerms: []`, "value/selector-terms", "ec2nodeclasses.yaml", nil},
		{"empty tag value", `nodeClasses: default: subnetSelectorTerms: [{tags: a: ""}]`, "value/selector-terms", "ec2nodeclasses.yaml", nil},
		{"security group name with id", `nodeClasses: default: securityGroupSelectorTerms: [{id: "sg-1", name: "x"}]`, "value/selector-terms", "ec2nodeclasses.yaml", nil},
	}
	for _, m := range []*facts.Minor{facts.Oldest(), facts.Newest()} {
		crds := loadCRDs(t, m)
		for _, c := range cases {
			t.Run(m.Minor+"/"+c.name, func(t *testing.T) {
				dir := filepath.Join(t.TempDir(), "profiles")
				src := strings.NewReplacer("VERSION", strings.TrimPrefix(m.Reference, "v"), "KUBE", m.Kubernetes[1], "OVERRIDE", c.override).Replace(caseProfile)
				if err := os.MkdirAll(dir, 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(dir, "p.cue"), []byte(src), 0o644); err != nil {
					t.Fatal(err)
				}

				loaded, err := load.Load(load.Folder{FS: os.DirFS(dir), Path: dir}, nil, nil)
				if err != nil {
					t.Fatal(err)
				}
				var p *profile.Profile
				if c.rule == "schema" {
					// Refused while loading: the schema's finding, and the
					// mistake written into the objects of the profile
					// without it for the CRD.
					if len(loaded.Findings) != 1 || loaded.Findings[0].Rule != "schema" {
						t.Fatalf("the schema did not refuse it: %v", loaded.Findings)
					}
					p = withField(t, dir, c.override)
				} else {
					if len(loaded.Findings) > 0 || len(loaded.Envs) != 1 {
						t.Fatalf("load: %v", loaded.Findings)
					}
					var vetted []string
					for _, f := range lint.Check(model.Resolve(loaded.Envs[0].Profile), &loaded.Envs[0]) {
						if f.Severity == diag.Error {
							vetted = append(vetted, f.Rule)
						}
					}
					if !contains(vetted, c.rule) {
						t.Errorf("vet did not refuse it with %s (errors: %v)", c.rule, vetted)
					}
					p = loaded.Envs[0].Profile
				}
				b, err := generators.Render(model.Resolve(p))
				if err != nil {
					t.Fatal(err)
				}
				def := crds.nodePool
				if c.file == "ec2nodeclasses.yaml" {
					def = crds.nodeClass
				}
				refused := false
				for _, o := range objects(t, b.Files[c.file]) {
					refused = refused || len(def.validate(o)) > 0
				}
				if accepts := contains(c.crdAccepts, m.Minor); refused == accepts {
					t.Errorf("the %s CRD refuses it: %v, want %v", m.Reference, refused, !accepts)
				}
			})
		}
	}
}

// withField is the profile of dir without the override, with the
// override's value written into the Go profile instead (the schema
// refuses it, so no load gives it): "nodePools: app: expireAfter: "30d"".
func withField(t *testing.T, dir, override string) *profile.Profile {
	t.Helper()
	src, err := os.ReadFile(filepath.Join(dir, "p.cue"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "p.cue"), []byte(strings.Replace(string(src), override, "", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	loaded, err := load.Load(load.Folder{FS: os.DirFS(dir), Path: dir}, nil, nil)
	if err != nil || len(loaded.Findings) > 0 || len(loaded.Envs) != 1 {
		t.Fatalf("load without the override: %v %v", err, loaded.Findings)
	}
	p := loaded.Envs[0].Profile
	path, value, _ := strings.Cut(override, `: "`)
	value = strings.TrimSuffix(value, `"`)
	pool := p.NodePools["app"]
	switch path {
	case "nodePools: app: disruption: budgets: [{nodes":
		pool.Disruption.Budgets = []profile.Budget{{Nodes: "1", Schedule: "@daily", Duration: "30s"}}
	case "nodePools: app: disruption: consolidateAfter":
		pool.Disruption.ConsolidateAfter = value
	case "nodePools: app: expireAfter":
		pool.ExpireAfter = value
	default:
		t.Fatalf("withField: no field for %q", path)
	}
	p.NodePools["app"] = pool
	return p
}

// minorsFrom lists the minors from first on.
func minorsFrom(first string) []string {
	var out []string
	for _, m := range facts.Minors {
		if !facts.MinorLess(m.Minor, first) {
			out = append(out, m.Minor)
		}
	}
	return out
}
