package generators_test

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/karpgen/karpgen/internal/model"

	"github.com/karpgen/karpgen/generators"
	"github.com/karpgen/karpgen/internal/facts"
	"github.com/karpgen/karpgen/internal/iam/iampolicy"
	"github.com/karpgen/karpgen/internal/oracle"
	"github.com/karpgen/karpgen/internal/profile"
)

// testProfile is a minimal valid profile for generator tests.
func testProfile(version, region, cluster string) *profile.Profile {
	return &profile.Profile{
		Env: "test",
		Cluster: profile.Cluster{
			Name: cluster, Region: region, Partition: facts.PartitionOf(region), AccountID: "491085395789",
			KubernetesVersion: "1.32", OIDCIssuer: "https://oidc.eks." + region + ".amazonaws.com/id/EXAMPLE",
		},
		Karpenter: profile.Karpenter{
			Version: version, Namespace: "karpenter", ServiceAccount: "karpenter", Auth: profile.AuthPodIdentity,
			InterruptionQueue: true, NodeAccess: profile.AccessEntry,
			Controller: profile.Controller{NodeGroup: "addon", Replicas: 2, LogLevel: "info"},
		},
		NodeGroups: map[string]profile.NodeGroup{"addon": {Labels: map[string]string{"nodegroup": "addon"}}},
		NodeClasses: map[string]profile.NodeClass{"default": {
			AMI:                        profile.AMI{Alias: "al2023@latest"},
			SubnetSelectorTerms:        []profile.SelectorTerm{{Tags: map[string]string{"karpenter.sh/discovery": cluster}}},
			SecurityGroupSelectorTerms: []profile.SelectorTerm{{Tags: map[string]string{"karpenter.sh/discovery": cluster}}},
			MetadataOptions:            profile.MetadataOptions{HTTPEndpoint: "enabled", HTTPProtocolIPv6: "disabled", HTTPPutResponseHopLimit: 1, HTTPTokens: "required"},
		}},
		NodePools: map[string]profile.NodePool{"app": {
			NodeClass: "default", Arch: []string{"amd64"}, OS: []string{"linux"}, CapacityTypes: []string{"spot", "on-demand"},
			Disruption:  profile.Disruption{ConsolidationPolicy: "WhenEmpty", ConsolidateAfter: "1m", Budgets: []profile.Budget{{Nodes: "10%"}}},
			ExpireAfter: "720h",
		}},
	}
}

var regions = []string{"ap-northeast-2", "cn-north-1", "us-gov-west-1"}

// TestControllerPolicyMatchesUpstream: for every minor and partition, the
// controller statements are exactly those of that tag's getting-started
// CloudFormation with its placeholders filled in from the profile, split
// into the same managed policies, and the node role, queue policy and
// rules agree too.
func TestControllerPolicyMatchesUpstream(t *testing.T) {
	dir := oracle.Dir(t)
	for i := range facts.Minors {
		m := &facts.Minors[i]
		for _, region := range regions {
			t.Run(m.Reference+"/"+region, func(t *testing.T) {
				p := testProfile(strings.TrimPrefix(m.Reference, "v"), region, "ws-conformance")
				n := model.Resolve(p).Names
				vars := oracle.Vars{
					Partition: n.Partition, Region: n.Region, Account: n.Account, Cluster: n.Cluster,
					URLSuffix: n.URLSuffix, NodeRoleARN: n.NodeRoleARN, QueueARN: n.QueueARN,
				}
				tpl, err := oracle.LoadTemplate(dir, m.Template().Reference, vars)
				if err != nil {
					t.Fatal(err)
				}
				applyErrata(t, dir, m, vars, tpl)
				if _, err := os.Stat(filepath.Join(dir, m.Reference, "cloudformation.yaml")); m.IAM.NoTemplate == (err == nil) {
					t.Fatalf("IAM.NoTemplate is %v, and the reference %s a getting-started template", m.IAM.NoTemplate, map[bool]string{true: "holds", false: "lacks"}[err == nil])
				}
				got := map[string]oracle.Policy{}
				for _, cp := range iampolicy.ControllerPolicies(m, n, model.IAMGates{}) {
					got[cp.Name] = oracle.Policy{Document: oracle.Normalize(cp.Document).(map[string]any)}
				}
				if !reflect.DeepEqual(keys(got), keys(tpl.Policies)) {
					t.Fatalf("managed policies:\n got %v\nwant %v", keys(got), keys(tpl.Policies))
				}
				for name, want := range tpl.Policies {
					gs, ws := got[name].Statements(), want.Statements()
					if !reflect.DeepEqual(keys(gs), keys(ws)) {
						t.Errorf("%s statements:\n got %v\nwant %v", name, keys(gs), keys(ws))
						continue
					}
					for sid := range ws {
						if !reflect.DeepEqual(gs[sid], ws[sid]) {
							t.Errorf("%s %s:\n got %v\nwant %v", name, sid, gs[sid], ws[sid])
						}
					}
				}
				arns := oracle.Normalize(generators.NodeManagedPolicies(m, n, n.NodeRoles()[0])["ManagedPolicyArns"])
				if want := oracle.Normalize(tpl.NodeRolePolicies); !reflect.DeepEqual(arns, want) {
					t.Errorf("node role policies:\n got %v\nwant %v", arns, want)
				}
				if got, want := oracle.Normalize(generators.NodeTrustPolicy(n)), oracle.Normalize(tpl.NodeTrust); !reflect.DeepEqual(got, want) {
					t.Errorf("node trust:\n got %v\nwant %v", got, want)
				}
				qp := oracle.Normalize(generators.InterruptionQueuePolicy(n)).(map[string]any)
				delete(qp, "Version") // the template leaves it to CloudFormation's default
				if want := oracle.Normalize(tpl.QueuePolicy); !reflect.DeepEqual(qp, want) {
					t.Errorf("queue policy:\n got %v\nwant %v", qp, want)
				}
				rules := map[string]any{}
				for _, r := range m.InterruptionRules {
					rules[r.Name] = oracle.Normalize(map[string]any{"source": []string{r.Source}, "detail-type": []string{r.DetailType}})
				}
				if want := oracle.Normalize(tpl.Rules); !reflect.DeepEqual(oracle.Normalize(rules), want) {
					t.Errorf("rules:\n got %v\nwant %v", rules, want)
				}
				checkCloudFormation(t, p, tpl)
				q := generators.Queue(n)
				if tpl.Queue["QueueName"] != q["QueueName"] || fmt.Sprint(tpl.Queue["MessageRetentionPeriod"]) != fmt.Sprint(q["MessageRetentionPeriod"]) || tpl.Queue["SqsManagedSseEnabled"] != q["SqsManagedSseEnabled"] {
					t.Errorf("queue: got %v, want %v", q, tpl.Queue)
				}
			})
		}
	}
}

// TestControllerPolicyWithoutInterruption leaves the queue statement out.
func TestControllerPolicyWithoutInterruption(t *testing.T) {
	for i := range facts.Minors {
		m := &facts.Minors[i]
		p := testProfile(strings.TrimPrefix(m.Reference, "v"), "us-east-1", "ws")
		p.Karpenter.InterruptionQueue = false
		for _, cp := range iampolicy.ControllerPolicies(m, model.Resolve(p).Names, model.IAMGates{}) {
			if s := string(encode(t, cp.Document)); strings.Contains(s, "sqs:") || cp.Part == "Interruption" {
				t.Errorf("%s %s: queue permissions without interruption handling", m.Minor, cp.File)
			}
		}
	}
}

// TestPolicySizeLimit: every document fits IAM's 6,144 characters even for
// a 100-character cluster name; single-policy minors that would not fit
// are split, and say so in the file name.
func TestPolicySizeLimit(t *testing.T) {
	long := strings.Repeat("c", 100)
	for i := range facts.Minors {
		m := &facts.Minors[i]
		for _, region := range []string{"ap-southeast-1", "us-gov-west-1"} {
			p := testProfile(strings.TrimPrefix(m.Reference, "v"), region, long)
			n := model.Resolve(p).Names
			policies := iampolicy.ControllerPolicies(m, n, model.IAMGates{})
			for _, cp := range policies {
				if size := iampolicy.CompactSize(cp.Document); size > iampolicy.MaxPolicySize {
					t.Errorf("%s %s: %s is %d characters", m.Minor, region, cp.File, size)
				}
				if len(cp.Name) > 128 {
					t.Errorf("%s: policy name %q is longer than 128", m.Minor, cp.Name)
				}
				if !m.IAM.Split && !strings.HasPrefix(cp.File, "controller-policy-split-") {
					t.Errorf("%s: single policy does not fit for a long name, yet %s is not marked split", m.Minor, cp.File)
				}
			}
			if len(n.NodeRole) > 64 || len(n.ControllerRole) > 64 || len(n.Queue) > 80 {
				t.Errorf("names too long: %q %q %q", n.NodeRole, n.ControllerRole, n.Queue)
			}
		}
		short := iampolicy.ControllerPolicies(m, model.Resolve(testProfile(strings.TrimPrefix(m.Reference, "v"), "us-east-1", "ws-prod")).Names, model.IAMGates{})
		if !m.IAM.Split && (len(short) != 1 || short[0].File != "controller-policy-all.json") {
			t.Errorf("%s: a short cluster name keeps upstream's single policy, got %d files", m.Minor, len(short))
		}
	}
}

// applyErrata puts, in place of each statement an erratum of m names, the
// statement as the template of the minor that fixed it has it: karpgen's
// row must equal upstream everywhere else, and upstream's fix there.
func applyErrata(t *testing.T, dir string, m *facts.Minor, vars oracle.Vars, tpl *oracle.Template) {
	t.Helper()
	for _, e := range m.Errata {
		fixed, ok := facts.LookupMinor(e.FixedIn)
		if !ok {
			t.Fatalf("erratum %s: no row for %s", e.Issue, e.FixedIn)
		}
		ftpl, err := oracle.LoadTemplate(dir, fixed.Reference, vars)
		if err != nil {
			t.Fatal(err)
		}
		var want any
		for _, p := range ftpl.Policies {
			if st, ok := p.Statements()[e.Statement]; ok {
				want = st
			}
		}
		replaced := false
		for _, p := range tpl.Policies {
			for i, st := range p.Document["Statement"].([]any) {
				if st.(map[string]any)["Sid"] == e.Statement {
					if reflect.DeepEqual(st, want) {
						t.Errorf("erratum %s: %s of %s already equals %s's: drop the erratum", e.Issue, e.Statement, m.Minor, e.FixedIn)
					}
					p.Document["Statement"].([]any)[i] = want
					replaced = true
				}
			}
		}
		if !replaced || want == nil {
			t.Fatalf("erratum %s: statement %s not found in %s and %s", e.Issue, e.Statement, m.Reference, fixed.Reference)
		}
	}
}

func keys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// checkCloudFormation compares the bundle's template with upstream's:
// the same managed policies, node role, queue, queue policy and rules.
func checkCloudFormation(t *testing.T, p *profile.Profile, tpl *oracle.Template) {
	t.Helper()
	b, err := generators.Render(model.Resolve(p))
	if err != nil {
		t.Fatal(err)
	}
	var cfn struct {
		Resources map[string]struct {
			Type       string         `json:"Type"`
			Properties map[string]any `json:"Properties"`
		} `json:"Resources"`
	}
	fromYAML(t, b.Files["iam/cloudformation.yaml"], &cfn)
	policies := map[string]oracle.Policy{}
	var rules []any
	for logical, r := range cfn.Resources {
		switch r.Type {
		case "AWS::IAM::ManagedPolicy":
			policies[r.Properties["ManagedPolicyName"].(string)] = oracle.Policy{Document: r.Properties["PolicyDocument"].(map[string]any)}
		case "AWS::IAM::Role":
			if logical != "KarpenterNodeRole" {
				continue
			}
			if !reflect.DeepEqual(r.Properties["ManagedPolicyArns"], oracle.Normalize(tpl.NodeRolePolicies)) {
				t.Errorf("CloudFormation node role policies %v", r.Properties["ManagedPolicyArns"])
			}
			if !reflect.DeepEqual(r.Properties["AssumeRolePolicyDocument"], oracle.Normalize(tpl.NodeTrust)) {
				t.Errorf("CloudFormation node trust %v", r.Properties["AssumeRolePolicyDocument"])
			}
		case "AWS::Events::Rule":
			rules = append(rules, r.Properties["EventPattern"])
		case "AWS::SQS::Queue":
			for k, v := range oracle.Normalize(tpl.Queue).(map[string]any) {
				if !reflect.DeepEqual(r.Properties[k], v) {
					t.Errorf("CloudFormation queue %s = %v, upstream %v", k, r.Properties[k], v)
				}
			}
		}
	}
	if !reflect.DeepEqual(keys(policies), keys(tpl.Policies)) {
		t.Fatalf("CloudFormation policies %v, upstream %v", keys(policies), keys(tpl.Policies))
	}
	for name, want := range tpl.Policies {
		if got := policies[name].Statements(); !reflect.DeepEqual(got, want.Statements()) {
			t.Errorf("CloudFormation %s differs from upstream", name)
		}
	}
	if len(rules) != len(tpl.Rules) {
		t.Errorf("CloudFormation has %d rules, upstream %d", len(rules), len(tpl.Rules))
	}
	for _, want := range tpl.Rules {
		found := false
		for _, r := range rules {
			found = found || reflect.DeepEqual(r, oracle.Normalize(want))
		}
		if !found {
			t.Errorf("CloudFormation lacks the rule %v", want)
		}
	}
}

// TestCloudFormationUpdatesUpstreamStack: for every minor, every resource
// of upstream's getting-started template is in iam/cloudformation.yaml
// under the same logical ID, with the same type and physical name, so
// that deploying karpgen's template to a stack made from upstream's
// updates it in place; karpgen's own resources have IDs upstream does not
// use.
func TestCloudFormationUpdatesUpstreamStack(t *testing.T) {
	dir := oracle.Dir(t)
	names := []string{"RoleName", "ManagedPolicyName", "QueueName", "Name"}
	for i := range facts.Minors {
		m := &facts.Minors[i]
		t.Run(m.Minor, func(t *testing.T) {
			var upstream struct {
				Resources map[string]struct {
					Type       string         `yaml:"Type"`
					Properties map[string]any `yaml:"Properties"`
				} `yaml:"Resources"`
			}
			data, err := os.ReadFile(filepath.Join(dir, m.Template().Reference, "cloudformation.yaml"))
			if err != nil {
				t.Fatal(err)
			}
			var root yaml.Node
			if err := yaml.Unmarshal(data, &root); err != nil {
				t.Fatal(err)
			}
			vars := oracle.Vars{Partition: "aws", Region: "us-east-1", Account: "491085395789", Cluster: "ws-stack", URLSuffix: "amazonaws.com"}
			for _, n := range []*yaml.Node{&root} {
				substitute(n, vars)
			}
			if err := root.Decode(&upstream); err != nil {
				t.Fatal(err)
			}
			p := testProfile(strings.TrimPrefix(m.Reference, "v"), "us-east-1", "ws-stack")
			b, err := generators.Render(model.Resolve(p))
			if err != nil {
				t.Fatal(err)
			}
			var ours struct {
				Resources map[string]struct {
					Type       string         `json:"Type"`
					Properties map[string]any `json:"Properties"`
				} `json:"Resources"`
			}
			fromYAML(t, b.Files["iam/cloudformation.yaml"], &ours)
			for id, want := range upstream.Resources {
				got, ok := ours.Resources[id]
				if !ok {
					t.Errorf("upstream's %s (%s) is missing", id, want.Type)
					continue
				}
				if got.Type != want.Type {
					t.Errorf("%s is a %s, upstream's a %s", id, got.Type, want.Type)
				}
				for _, k := range names {
					if w, ok := want.Properties[k]; ok && fmt.Sprint(got.Properties[k]) != fmt.Sprint(w) {
						t.Errorf("%s %s is %v, upstream's %v", id, k, got.Properties[k], w)
					}
				}
			}
		})
	}
}

// substitute fills !Sub placeholders of a template in place.
func substitute(n *yaml.Node, v oracle.Vars) {
	if n.Tag == "!Sub" {
		n.Tag, n.Value = "!!str", strings.NewReplacer("${AWS::Partition}", v.Partition, "${AWS::Region}", v.Region,
			"${AWS::AccountId}", v.Account, "${AWS::URLSuffix}", v.URLSuffix, "${ClusterName}", v.Cluster).Replace(n.Value)
	}
	for _, c := range n.Content {
		substitute(c, v)
	}
}

// TestRebootForRepairAddsOneScopedStatement: with
// awsFeatureGates.rebootForRepair on, the policy of a minor whose node
// repair can reboot gains ec2:RebootInstances on the cluster's own
// instances, under the termination statement's condition, and nothing
// else; on other minors the gate changes nothing.
func TestRebootForRepairAddsOneScopedStatement(t *testing.T) {
	for i := range facts.Minors {
		m := &facts.Minors[i]
		t.Run(m.Minor, func(t *testing.T) {
			n := model.Resolve(testProfile(strings.TrimPrefix(m.Reference, "v"), "us-east-1", "ws-reboot")).Names
			off := statementsBySid(iampolicy.ControllerPolicies(m, n, model.IAMGates{}))
			on := statementsBySid(iampolicy.ControllerPolicies(m, n, model.IAMGates{RebootForRepair: true}))
			reboot, added := on["AllowScopedReboot"]
			delete(on, "AllowScopedReboot")
			if !reflect.DeepEqual(on, off) {
				t.Fatal("the gate changed statements other than AllowScopedReboot")
			}
			if added != m.IAM.RebootForRepair {
				t.Fatalf("AllowScopedReboot present %v, the minor reboots for repair: %v", added, m.IAM.RebootForRepair)
			}
			if !added {
				return
			}
			del := off["AllowScopedDeletion"]
			want := map[string]any{
				"Sid": "AllowScopedReboot", "Effect": "Allow", "Action": "ec2:RebootInstances",
				"Resource":  del["Resource"].([]any)[0],
				"Condition": del["Condition"],
			}
			if !reflect.DeepEqual(reboot, want) {
				t.Errorf("AllowScopedReboot:\n got %v\nwant %v", reboot, want)
			}
		})
	}
}

// statementsBySid flattens policies into their statements, normalized.
func statementsBySid(policies []iampolicy.ControllerPolicy) map[string]map[string]any {
	out := map[string]map[string]any{}
	for _, cp := range policies {
		doc := oracle.Normalize(cp.Document).(map[string]any)
		for _, st := range doc["Statement"].([]any) {
			s := st.(map[string]any)
			out[s["Sid"].(string)] = s
		}
	}
	return out
}
