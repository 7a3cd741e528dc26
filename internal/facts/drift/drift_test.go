package drift

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/karpgen/karpgen/internal/facts"
)

// TestEveryMinorHasRules: the table covers the reference release of every
// supported minor, and knows what to make of every hash input and drift
// check it names.
func TestEveryMinorHasRules(t *testing.T) {
	for _, m := range facts.Minors {
		r, err := For(m.Reference)
		if err != nil {
			t.Errorf("%s: %v", m.Minor, err)
			continue
		}
		for kind, k := range r.Kinds {
			for _, in := range k.HashInputs {
				if _, ok := hashInputs[in]; !ok {
					t.Errorf("%s %s: the hash takes %s, which Compare does not map to a field", m.Reference, kind, in)
				}
			}
			if len(k.Fields) < 10 || k.HashVersion == "" {
				t.Errorf("%s %s: %d fields, hash version %q", m.Reference, kind, len(k.Fields), k.HashVersion)
			}
		}
		for field, d := range dynamic {
			if _, ok := r.Kinds[EC2NodeClass].Fields[field]; ok && !r.Kinds[EC2NodeClass].Reasons[d.reason] && d.reason != "PlacementGroupDrift" {
				t.Errorf("%s has %s but no %s check", m.Reference, field, d.reason)
			}
		}
	}
}

func obj(t *testing.T, y string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := yaml.Unmarshal([]byte(y), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func compare(t *testing.T, release, kind, old, new string) string {
	t.Helper()
	r, err := For(release)
	if err != nil {
		t.Fatal(err)
	}
	changes, err := r.Compare(nil, kind, obj(t, old), obj(t, new))
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, c := range changes {
		from, _ := json.Marshal(c.From)
		to, _ := json.Marshal(c.To)
		lines = append(lines, strings.Join([]string{c.Path, string(from), string(to), string(c.Effect), c.Reason, c.Why}, " | "))
	}
	return strings.Join(lines, "\n")
}

const pool = `
apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: app}
spec:
  template:
    metadata: {labels: {team: a, "example.com/tier": web}}
    spec:
      requirements:
      - {key: topology.kubernetes.io/zone, operator: In, values: [z-a, z-b]}
      - {key: karpenter.k8s.aws/instance-generation, operator: Gt, values: ["4"]}
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
      expireAfter: 720h
  limits: {cpu: 40}
  disruption: {budgets: [{nodes: 10%}]}
`

func TestCompareNodePool(t *testing.T) {
	if got := compare(t, "v1.14.3", NodePool, pool, pool); got != "" {
		t.Errorf("no edit: %s", got)
	}
	want := map[string]string{
		"label":             `spec.template.metadata.labels.team | "a" | "b" | drift | NodePoolDrifted | enters the NodePool hash (v3): every node made from it is replaced`,
		"limits":            `spec.limits.cpu | 40 | 80 | in-place |  | limits bound what the pool may launch from now on; no node is replaced`,
		"zone added":        `spec.template.spec.requirements | ` + reqs("z-a\",\"z-b", "4") + ` | ` + reqs("z-a\",\"z-b\",\"z-c", "4") + ` | in-place |  | requirements stay out of the hash, and every node the old ones allowed still satisfies the new ones`,
		"zone removed":      `spec.template.spec.requirements | ` + reqs("z-a\",\"z-b", "4") + ` | ` + reqs("z-a", "4") + ` | drift | RequirementsDrifted | requirements stay out of the hash, but these nodes no longer satisfy them: nodes with topology.kubernetes.io/zone z-b`,
		"generation raised": `spec.template.spec.requirements | ` + reqs("z-a\",\"z-b", "4") + ` | ` + reqs("z-a\",\"z-b", "5") + ` | drift | RequirementsDrifted | requirements stay out of the hash, but these nodes no longer satisfy them: nodes whose karpenter.k8s.aws/instance-generation is not greater than 5`,
		"domain label":      `spec.template.metadata.labels["example.com/tier"] | "web" | "api" | drift | NodePoolDrifted | enters the NodePool hash (v3): every node made from it is replaced`,
	}
	edits := map[string][2]string{
		"label": {`team: a`, `team: b`}, "limits": {`cpu: 40`, `cpu: 80`},
		"zone added": {`values: [z-a, z-b]`, `values: [z-a, z-b, z-c]`}, "zone removed": {`values: [z-a, z-b]`, `values: [z-a]`},
		"generation raised": {`values: ["4"]`, `values: ["5"]`}, "domain label": {`"example.com/tier": web`, `"example.com/tier": api`},
	}
	for name, e := range edits {
		if got := compare(t, "v1.14.3", NodePool, pool, strings.Replace(pool, e[0], e[1], 1)); got != want[name] {
			t.Errorf("%s:\n got %s\nwant %s", name, got, want[name])
		}
	}
}

func reqs(zones, gen string) string {
	return `[{"key":"topology.kubernetes.io/zone","operator":"In","values":["` + zones + `"]},{"key":"karpenter.k8s.aws/instance-generation","operator":"Gt","values":["` + gen + `"]}]`
}

// TestStaticToDynamicIsARecreate: the CRD's transition rule, evaluated.
func TestStaticToDynamicIsARecreate(t *testing.T) {
	static := strings.Replace(pool, "  limits: {cpu: 40}\n", "  replicas: 3\n", 1)
	got := compare(t, "v1.14.3", NodePool, static, pool)
	want := `spec.limits | null | {"cpu":40} | in-place |  | limits bound what the pool may launch from now on; no node is replaced
spec.replicas | 3 | null | in-place |  | the pool stops being static
spec | null | null | recreate | Cannot transition NodePool between static (replicas set) and dynamic (replicas unset) provisioning modes | the CRD's rule has(self.replicas) == has(oldSelf.replicas) refuses the change in place: delete the object and create it again, which replaces its nodes`
	if got != want {
		t.Errorf("static to dynamic:\n got %s\nwant %s", got, want)
	}
	// 1.7 has no static pools and no rule.
	r, _ := For("v1.7.6")
	if len(r.Kinds[NodePool].Transitions) != 2 {
		t.Errorf("1.7 transition rules: %v", r.Kinds[NodePool].Transitions)
	}
}

const class = `
apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata: {name: default}
spec:
  role: KarpenterNodeRole-c
  amiSelectorTerms: [{alias: al2023@v20250115}]
  subnetSelectorTerms: [{tags: {karpenter.sh/discovery: c}}]
  securityGroupSelectorTerms: [{tags: {karpenter.sh/discovery: c}}]
  kubelet: {maxPods: 110}
  tags: {team: a}
`

func TestCompareNodeClass(t *testing.T) {
	for _, tc := range []struct{ release, old, new, want string }{
		{"v1.14.3", `al2023@v20250115`, `al2023@v20250201`,
			`spec.amiSelectorTerms | [{"alias":"al2023@v20250115"}] | [{"alias":"al2023@v20250201"}] | drift | AMIDrift | outside the hash, but the AMIDrift check replaces nodes whose image the new terms do not select`},
		{"v1.14.3", `tags: {team: a}`, `tags: {team: b}`,
			`spec.tags.team | "a" | "b" | drift | NodeClassDrift | enters the EC2NodeClass hash (v5): every node made from it is replaced`},
		{"v1.14.3", `maxPods: 110`, `maxPods: 58`,
			`spec.kubelet.maxPods | 110 | 58 | drift | NodeClassDrift | enters the EC2NodeClass hash (v5): every node made from it is replaced`},
		{"v1.15.2", `maxPods: 110`, `maxPods: 58`,
			`spec.kubelet.maxPods | 110 | 58 | drift | NodeClassDrift | tagged hash:"ignore" but hashed as in.Spec.Kubelet.String() (v6): every node made from it is replaced`},
		{"v1.14.3", `  tags: {team: a}`, "  tags: {team: a}\n  amiFamily: AL2023",
			`spec.amiFamily | null | "AL2023" | in-place |  | the AMI family it resolves to stays AL2023`},
		{"v1.14.3", `  tags: {team: a}`, "  tags: {team: a}\n  amiFamily: Custom",
			`spec.amiFamily | null | "Custom" | drift | NodeClassDrift | the AMI family the hash takes (in.AMIFamily()) changes from AL2023 to Custom: every node is replaced`},
	} {
		if got := compare(t, tc.release, EC2NodeClass, class, strings.Replace(class, tc.old, tc.new, 1)); got != tc.want {
			t.Errorf("%s %s -> %s:\n got %s\nwant %s", tc.release, tc.old, tc.new, got, tc.want)
		}
	}
}

func TestNarrowed(t *testing.T) {
	in := func(k string, v ...string) Requirement { return Requirement{Key: k, Operator: "In", Values: v} }
	for _, tc := range []struct {
		old, new []Requirement
		want     string
	}{
		{[]Requirement{in("k", "a", "b")}, []Requirement{in("k", "a", "b", "c")}, ""},
		{[]Requirement{in("k", "a", "b")}, []Requirement{in("k", "b")}, "nodes with k a"},
		{nil, []Requirement{in("k", "a")}, "nodes whose k is not one of a"},
		{[]Requirement{in("k", "a")}, nil, ""},
		{[]Requirement{{Key: "k", Operator: "NotIn", Values: []string{"a"}}}, []Requirement{{Key: "k", Operator: "NotIn", Values: []string{"a", "b"}}}, "nodes whose k is not none of a, b"},
		{[]Requirement{{Key: "g", Operator: "Gt", Values: []string{"4"}}}, []Requirement{{Key: "g", Operator: "Gt", Values: []string{"3"}}}, ""},
		{[]Requirement{{Key: "g", Operator: "Exists"}}, []Requirement{{Key: "g", Operator: "Gt", Values: []string{"3"}}}, "nodes whose g is not greater than 3"},
	} {
		if got := strings.Join(Narrowed(tc.old, tc.new), "; "); got != tc.want {
			t.Errorf("%v -> %v: %q, want %q", tc.old, tc.new, got, tc.want)
		}
	}
}

func TestPacing(t *testing.T) {
	for _, tc := range []struct{ budgets, want string }{
		{``, "at most 10% of the pool's nodes at a time (the default budget)"},
		{`budgets: [{nodes: "20%"}]`, "at most 20% of the pool's nodes at a time"},
		{`budgets: [{nodes: "0", reasons: [Drifted]}, {nodes: "5"}]`, "a budget of 0 nodes for drift: nothing is replaced until it opens"},
		{`budgets: [{nodes: "0", reasons: [Empty]}]`, "no budget applies to drift: every drifted node may be replaced at once"},
		{`budgets: [{nodes: "10%"}, {nodes: "0", schedule: "0 9 * * 1-5", duration: 8h}]`, `at most 10% of the pool's nodes at a time; 0 during "0 9 * * 1-5" for 8h`},
	} {
		_, got := Pacing(obj(t, "spec: {disruption: {"+tc.budgets+"}}"))
		if got != tc.want {
			t.Errorf("%s: %q, want %q", tc.budgets, got, tc.want)
		}
	}
}

// TestTableIsEmbedded: the package reads the file hack/drifttable writes.
func TestTableIsEmbedded(t *testing.T) {
	text, err := os.ReadFile(filepath.Join("data", "table.tsv"))
	if err != nil || string(text) != tableTSV {
		t.Fatalf("data/table.tsv is not the embedded table: %v", err)
	}
}

// TestHashVersionChangeDriftsNothing: a hashed field that changes with
// an upgrade that bumps the hash version (EC2NodeClass v4 in 1.11, v5 in
// 1.12) drifts nothing, as upstream's hash controller re-stamps the
// nodes; selector terms still drift through their checks.
func TestHashVersionChangeDriftsNothing(t *testing.T) {
	from, _ := For("v1.11.3")
	to, _ := For("v1.12.2")
	for _, tc := range []struct{ old, new, want string }{
		{`tags: {team: a}`, `tags: {team: b}`, "in-place |  | enters the EC2NodeClass hash, but its version changes (v4 to v5): Karpenter gives existing nodes the new hash instead of drifting them"},
		{`al2023@v20250115`, `al2023@v20250201`, "drift | AMIDrift |"},
	} {
		changes, err := to.Compare(from, EC2NodeClass, obj(t, class), obj(t, strings.Replace(class, tc.old, tc.new, 1)))
		if err != nil || len(changes) != 1 {
			t.Fatalf("%v %v", changes, err)
		}
		c := changes[0]
		if got := string(c.Effect) + " | " + c.Reason + " | " + c.Why; !strings.HasPrefix(got, tc.want) {
			t.Errorf("%s -> %s: %q, want %q", tc.old, tc.new, got, tc.want)
		}
	}
	// The same minor: the tag drifts.
	changes, _ := to.Compare(to, EC2NodeClass, obj(t, class), obj(t, strings.Replace(class, "team: a", "team: b", 1)))
	if len(changes) != 1 || changes[0].Effect != Drift {
		t.Errorf("within 1.12: %+v", changes)
	}
}

// TestRequirementDeltas: key by key, the operator on each side and the
// values gained and lost; a key that stays the same is left out, one
// given twice shows both operators.
func TestRequirementDeltas(t *testing.T) {
	r := func(k, op string, min int, v ...string) Requirement {
		return Requirement{Key: k, Operator: op, Values: v, MinValues: min}
	}
	old := []Requirement{
		r("family", "In", 0, "c7g", "m7g", "r7g"),
		r("zone", "In", 0, "a", "b"),
		r("arch", "In", 0, "arm64"),
		r("gen", "Gt", 0, "5"),
		r("gone", "Exists", 0),
	}
	new := []Requirement{
		r("family", "In", 2, "c7g", "m7i", "r7g", "c7g"),
		r("zone", "In", 0, "b", "a"),
		r("arch", "NotIn", 0, "amd64"),
		r("gen", "Gt", 0, "5"),
		r("gen", "Lt", 0, "9"),
		r("new", "DoesNotExist", 0),
	}
	var got []string
	for _, d := range RequirementDeltas(old, new) {
		got = append(got, fmt.Sprintf("%s %q->%q +%v -%v", d.Key, d.From, d.To, d.ValuesAdded, d.ValuesRemoved))
	}
	want := []string{
		`arch "In"->"NotIn" +[amd64] -[arm64]`,
		`family "In"->"In (minValues 2)" +[m7i] -[m7g]`,
		`gen "Gt"->"Gt+Lt" +[9] -[]`,
		`gone "Exists"->"" +[] -[]`,
		`new ""->"DoesNotExist" +[] -[]`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
