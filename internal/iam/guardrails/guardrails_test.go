package guardrails_test

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/karpgen/karpgen/internal/diag"
	"github.com/karpgen/karpgen/internal/facts"
	"github.com/karpgen/karpgen/internal/iam/guardrails"
	"github.com/karpgen/karpgen/internal/iam/iampolicy"
	"github.com/karpgen/karpgen/internal/iameval"
	"github.com/karpgen/karpgen/internal/model"
	"github.com/karpgen/karpgen/internal/oracle"
	"github.com/karpgen/karpgen/internal/profile"
)

// env is a profile of the minor, in a region the corpus's region guardrail
// allows, with the corpus's levels and boundary.
func env(t *testing.T, m *facts.Minor, g profile.Guardrails, change ...func(*profile.Profile)) *model.Env {
	t.Helper()
	p := &profile.Profile{
		Env:     "corpus",
		Cluster: profile.Cluster{Name: "ws-corpus", Region: "eu-west-1", Partition: "aws", AccountID: "491085395789", KubernetesVersion: m.Kubernetes[1]},
		Karpenter: profile.Karpenter{Version: strings.TrimPrefix(m.Reference, "v"), Namespace: "kube-system", ServiceAccount: "karpenter",
			Auth: profile.AuthPodIdentity, InterruptionQueue: true, NodeAccess: profile.AccessEntry},
		NodeClasses: map[string]profile.NodeClass{"default": {
			AMI:             profile.AMI{Alias: "al2023@latest"},
			MetadataOptions: profile.MetadataOptions{HTTPEndpoint: "enabled", HTTPTokens: "required", HTTPPutResponseHopLimit: 1},
			BlockDevices:    []profile.BlockDevice{{DeviceName: "/dev/xvda", VolumeSize: "100Gi", VolumeType: "gp3", Encrypted: true}},
			Tags:            map[string]string{"CostCenter": "platform"},
		}},
		NodePools: map[string]profile.NodePool{
			"app": {NodeClass: "default", Arch: []string{"amd64", "arm64"}, CapacityTypes: []string{"spot", "on-demand"}, InstanceFamilies: []string{"m5", "m7g", "c6i"}},
			"gpu": {NodeClass: "default", CapacityTypes: []string{"on-demand"}, InstanceFamilies: []string{"g5", "p4d"}},
		},
		Guardrails: &g,
	}
	for _, c := range change {
		c(p)
	}
	e := model.Resolve(p)
	dir := filepath.Join("testdata", "corpus")
	gr, findings := guardrails.Load(os.DirFS("testdata"), dir, &g, func(string) diag.Pos { return diag.Pos{} })
	if len(findings) > 0 {
		t.Fatalf("corpus: %v", findings)
	}
	e.Guardrails = gr
	return e
}

var corpus = profile.Guardrails{
	Organization: []profile.GuardrailLevel{
		{Name: "root", Policies: []string{"corpus/FullAWSAccess.json", "corpus/deny-regions.json", "corpus/deny-leaving-org.json"}},
		{Name: "workloads", Policies: []string{"corpus/FullAWSAccess.json", "corpus/require-tags.json", "corpus/require-imdsv2.json",
			"corpus/require-encryption.json", "corpus/deny-gpu.json"}},
	},
	ResourceControlPolicies: []string{"corpus/rcp-sqs.json"},
	PermissionsBoundary:     "corpus/boundary.json",
}

// TestCorpusAgreesWithTheSimulator: for every minor, every request the
// controller makes for a profile with a general and a GPU pool, under a
// corpus of the guardrails AWS publishes as examples (region deny, deny
// leaving the organization, required tags, IMDSv2, encrypted volumes,
// GPU instance types, an SQS RCP) and a boundary, is decided alike by the
// evaluator and the IAM policy simulator; the GPU launches, and only
// they, are denied.
func TestCorpusAgreesWithTheSimulator(t *testing.T) {
	read := func(name string) map[string]any {
		var doc map[string]any
		data, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil || json.Unmarshal(data, &doc) != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return doc
	}
	total := 0
	for i := range facts.Minors {
		if testing.Short() && i != len(facts.Minors)-1 {
			continue // -short: the newest minor
		}
		m := &facts.Minors[i]
		e := env(t, m, corpus)
		var identity []map[string]any
		for _, cp := range iampolicy.ControllerPolicies(e.Facts, e.Names, e.IAMGates) {
			b, _ := json.Marshal(cp.Document)
			var doc map[string]any
			_ = json.Unmarshal(b, &doc)
			identity = append(identity, doc)
		}
		var scps [][]map[string]any
		for _, l := range corpus.Organization {
			var level []map[string]any
			for _, p := range l.Policies {
				level = append(level, read(p))
			}
			scps = append(scps, level)
		}
		reqs := guardrails.Requests(e)
		var cases []map[string]any
		allowAll := map[string]any{"Version": "2012-10-17", "Statement": []any{map[string]any{"Effect": "Allow", "Action": "*", "Resource": "*"}}}
		for _, r := range reqs {
			c := map[string]any{"identity": identity, "boundary": read(corpus.PermissionsBoundary), "scps": scps,
				"rcps":    [][]map[string]any{{read(corpus.ResourceControlPolicies[0])}},
				"request": map[string]any{"action": r.Action, "resource": r.Resource, "context": r.Context}}
			if r.Service != "" {
				// A service's delivery: the resource control policies alone.
				c["identity"], c["boundary"], c["scps"] = []map[string]any{allowAll}, nil, nil
			}
			cases = append(cases, c)
		}
		oracle := oracle.Decide(t, cases)
		policies := iameval.Policies{Identity: nil, Boundary: e.Guardrails.Boundary, SCPs: e.Guardrails.SCPs, RCPs: e.Guardrails.RCPs}
		for _, cp := range iampolicy.ControllerPolicies(e.Facts, e.Names, e.IAMGates) {
			b, _ := json.Marshal(cp.Document)
			p, err := iameval.Parse(cp.Name, b, false)
			if err != nil {
				t.Fatal(err)
			}
			policies.Identity = append(policies.Identity, p)
		}
		allowed := &iameval.Policy{Name: "allow", Statements: []iameval.Statement{{Effect: "Allow", Actions: []string{"*"}, Resources: []string{"*"}}}}
		for j, r := range reqs {
			p := policies
			if r.Service != "" {
				p = iameval.Policies{Identity: []*iameval.Policy{allowed}, RCPs: policies.RCPs}
			}
			res, err := iameval.Evaluate(p, r.Request)
			if err != nil {
				t.Fatal(err)
			}
			// The simulator cannot match an ARN without an account (AWS's
			// public SSM parameters): those are the evaluator's alone.
			if string(res.Decision) != oracle[j] && r.Action != "ssm:GetParameter" {
				t.Errorf("%s: %s %s %v: evaluator %s, simulator %s", m.Minor, r.Action, r.Resource, r.Types, res.Decision, oracle[j])
			}
			gpu := r.Pool == "gpu" && len(r.Types) > 0
			if denied := res.Decision != iameval.Allowed; denied != gpu {
				t.Errorf("%s: %s %s %v for %q: %s", m.Minor, r.Action, r.Resource, r.Types, r.Pool, res.Decision)
			}
		}
		total += len(reqs)
	}
	t.Logf("%d requests over %d minors agree", total, len(facts.Minors))
}

// TestFullAWSAccessFindsNothing: FullAWSAccess alone denies no request of
// any minor.
func TestFullAWSAccessFindsNothing(t *testing.T) {
	for i := range facts.Minors {
		m := &facts.Minors[i]
		e := env(t, m, profile.Guardrails{Organization: []profile.GuardrailLevel{{Name: "root", Policies: []string{"corpus/FullAWSAccess.json"}}}})
		denials, err := guardrails.Check(e)
		if err != nil || len(denials) > 0 {
			t.Errorf("%s: %v %v", m.Minor, err, fmt.Sprint(denials))
		}
	}
}

// TestRCPCanStopInterruptionEvents: an RCP that keeps SQS to the
// organization's principals, without the exception for AWS services that
// AWS's examples carry, stops EventBridge delivering interruption events:
// the finding says so; the controller's own SQS calls pass.
func TestRCPCanStopInterruptionEvents(t *testing.T) {
	m := facts.Newest()
	e := env(t, m, profile.Guardrails{
		Organization:            []profile.GuardrailLevel{{Name: "root", Policies: []string{"corpus/FullAWSAccess.json"}}},
		ResourceControlPolicies: []string{"corpus/rcp-org-only.json"},
		OrganizationID:          "o-a1b2c3d4e5",
	})
	denials, err := guardrails.Check(e)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range denials {
		got = append(got, d.Message())
	}
	want := `events.amazonaws.com (interruption events): sqs:SendMessage on ws-corpus is explicitly denied by corpus/rcp-org-only.json statement "DenySQSOutsideTheOrganization"`
	if len(got) != 1 || got[0] != want {
		t.Errorf("denials:\n%s\nwant:\n%s", strings.Join(got, "\n"), want)
	}
}

// irsa makes the profile's controller authenticate with IRSA.
func irsa(issuer string) func(*profile.Profile) {
	return func(p *profile.Profile) {
		p.Karpenter.Auth = profile.AuthIRSA
		p.Cluster.OIDCIssuer = issuer
	}
}

// TestEveryGrantedActionIsRequested: for every minor and both ways the
// controller authenticates, every action its generated controller policy
// grants is among the requests evaluated, and so is the credential
// exchange that gives the controller its role.
func TestEveryGrantedActionIsRequested(t *testing.T) {
	for i := range facts.Minors {
		m := &facts.Minors[i]
		for _, auth := range []struct {
			name   string
			change func(*profile.Profile)
			sts    []string
		}{
			{"pod identity", func(*profile.Profile) {}, []string{"sts:AssumeRole", "sts:TagSession"}},
			{"irsa", irsa("https://oidc.eks.eu-west-1.amazonaws.com/id/0123456789ABCDEF"), []string{"sts:AssumeRoleWithWebIdentity"}},
		} {
			e := env(t, m, corpus, auth.change)
			requested := map[string]bool{}
			for _, r := range guardrails.Requests(e) {
				requested[r.Action] = true
			}
			granted := guardrails.Granted(e)
			if len(granted) < 25 {
				t.Fatalf("%s: the controller policy grants %d actions", m.Minor, len(granted))
			}
			for _, a := range slices.Sorted(maps.Keys(granted)) {
				if !requested[a] {
					t.Errorf("%s, %s: %s is granted and never requested", m.Minor, auth.name, a)
				}
			}
			for _, a := range auth.sts {
				if !requested[a] {
					t.Errorf("%s, %s: the credential exchange %s is not requested", m.Minor, auth.name, a)
				}
			}
		}
	}
}

// TestAWSExamplesThatStopKarpenter: guardrails AWS publishes as examples
// that stop Karpenter in AWS are found by vet, and only the requests
// they stop: the data perimeter's identity RCP stops IRSA from an OIDC
// provider it does not trust (the cluster's, here) and lets Pod Identity
// and EventBridge through with the organization's ID; an SCP that keeps
// instance profiles to administrators stops every instance profile call
// the controller makes, not only the first.
func TestAWSExamplesThatStopKarpenter(t *testing.T) {
	m := facts.Newest()
	perimeter := profile.Guardrails{
		Organization:            []profile.GuardrailLevel{{Name: "root", Policies: []string{"corpus/FullAWSAccess.json"}}},
		ResourceControlPolicies: []string{"corpus/RCPFullAWSAccess.json", "corpus/rcp-identity-perimeter.json"},
		OrganizationID:          "o-a1b2c3d4e5",
	}
	messages := func(e *model.Env) []string {
		denials, err := guardrails.Check(e)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, d := range denials {
			out = append(out, d.Message())
		}
		return out
	}
	for _, tc := range []struct {
		name   string
		change func(*profile.Profile)
		want   []string
	}{
		{"pod identity", func(*profile.Profile) {}, nil},
		{"irsa, trusted provider", irsa("https://oidc.eks.eu-west-1.amazonaws.com/id/TRUSTED0123456789"), nil},
		{"irsa, another provider", irsa("https://oidc.eks.eu-west-1.amazonaws.com/id/0123456789ABCDEF"), []string{
			`the cluster's OIDC provider (the controller's IRSA credentials): sts:AssumeRoleWithWebIdentity on role is explicitly denied by corpus/rcp-identity-perimeter.json statement "EnforceTrustedOIDCProviders"`,
		}},
	} {
		got := messages(env(t, m, perimeter, tc.change))
		if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
			t.Errorf("%s:\n%s\nwant:\n%s", tc.name, strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
		}
	}

	profiles := profile.Guardrails{Organization: []profile.GuardrailLevel{
		{Name: "root", Policies: []string{"corpus/FullAWSAccess.json", "corpus/deny-instance-profile-changes.json"}}}}
	got := messages(env(t, m, profiles))
	want := `node class default: iam:CreateInstanceProfile on instance-profile, iam:TagInstanceProfile on instance-profile, iam:AddRoleToInstanceProfile on instance-profile, iam:RemoveRoleFromInstanceProfile on instance-profile, iam:DeleteInstanceProfile on instance-profile are explicitly denied by corpus/deny-instance-profile-changes.json statement "OnlyAdministratorsChangeInstanceProfiles"`
	if len(got) != 1 || got[0] != want {
		t.Errorf("instance profiles:\n%s\nwant:\n%s", strings.Join(got, "\n"), want)
	}
}

// TestOrganizationKeysNeedTheOrganization: a guardrail that tests the
// organization of a request (aws:SourceOrgID, aws:PrincipalOrgID,
// aws:ResourceOrgID) needs guardrails.organizationID: without it every
// request would look like one from outside the organization, so vet asks
// for it at the statement instead of reporting denials AWS would not make.
func TestOrganizationKeysNeedTheOrganization(t *testing.T) {
	g := profile.Guardrails{ResourceControlPolicies: []string{"corpus/rcp-identity-perimeter.json"}}
	_, findings := guardrails.Load(os.DirFS("testdata"), filepath.Join("testdata", "corpus"), &g, func(string) diag.Pos { return diag.Pos{} })
	var got []string
	for _, f := range findings {
		got = append(got, fmt.Sprintf("%s:%d: %s", filepath.Base(f.Pos.File), f.Pos.Line, f.Message))
	}
	want := []string{
		`rcp-identity-perimeter.json:4: corpus/rcp-identity-perimeter.json statement "EnforceOrgIdentities" tests aws:PrincipalOrgID, which every request of the organization carries, and the profile does not name the organization`,
		`rcp-identity-perimeter.json:42: corpus/rcp-identity-perimeter.json statement "EnforceConfusedDeputyProtection" tests aws:SourceOrgID, which every request of the organization carries, and the profile does not name the organization`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("findings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestPricingIsAskedWhereTheControllerAsks: Karpenter asks the Price List
// API's endpoint nearest the cluster (ap-south-1 for Seoul), not always
// us-east-1, so a region guardrail that allows Seoul and Virginia alone
// denies it. In GovCloud there is no Price List API and no request.
func TestPricingIsAskedWhereTheControllerAsks(t *testing.T) {
	g := profile.Guardrails{Organization: []profile.GuardrailLevel{{Name: "root", Policies: []string{"corpus/FullAWSAccess.json", "pricing/deny-outside-seoul.json"}}}}
	for _, tc := range []struct{ region, asked, want string }{
		{"ap-northeast-2", "[ap-south-1]", `the controller: pricing:GetProducts on * is explicitly denied by pricing/deny-outside-seoul.json statement "DenyOutsideSeoulAndVirginia"`},
		{"us-west-2", "[us-east-1]", ""},
		{"us-gov-west-1", "", ""},
	} {
		e := env(t, facts.Newest(), g, func(p *profile.Profile) {
			p.Cluster.Region = tc.region
			p.Cluster.Partition = facts.PartitionOf(tc.region)
		})
		var pricing []string
		for _, r := range guardrails.Requests(e) {
			if r.Action == "pricing:GetProducts" {
				pricing = append(pricing, fmt.Sprint(r.Context["aws:RequestedRegion"]))
			}
		}
		denials, err := guardrails.Check(e)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, d := range denials {
			if slices.Contains(d.What, "pricing:GetProducts on *") {
				got = append(got, d.Message())
			}
		}
		if strings.Join(pricing, " ") != tc.asked || strings.Join(got, "\n") != tc.want {
			t.Errorf("%s: pricing asked in %v, denials %q; want asked in %s, denials %q", tc.region, pricing, got, tc.asked, tc.want)
		}
	}
}
