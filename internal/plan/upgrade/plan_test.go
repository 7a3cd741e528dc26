package upgrade_test

import (
	"bytes"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/karpgen/karpgen/internal/doctor/live"
	"github.com/karpgen/karpgen/internal/envcheck/envchecktest"
	"github.com/karpgen/karpgen/internal/facts"
	"github.com/karpgen/karpgen/internal/iam/cfnpreview"
	"github.com/karpgen/karpgen/internal/iam/iampolicy"
	"github.com/karpgen/karpgen/internal/model"
	"github.com/karpgen/karpgen/internal/oracle"
	"github.com/karpgen/karpgen/internal/plan/upgrade"
	"github.com/karpgen/karpgen/internal/printer"
)

func prodEnv(t *testing.T) *model.Env {
	t.Helper()
	envs := envchecktest.Envs(t, filepath.Join("testdata", "profiles"))
	if len(envs) != 1 {
		t.Fatalf("the test profile has %d environments, want 1", len(envs))
	}
	return envs[0]
}

// pairs are the moves with golden plans: every adjacent pair of minors
// (each at its latest patch), the move to v1 from 0.37, 1.0 to the newest
// in one plan, and the move to v1 from the v1alpha5 APIs.
func pairs() [][2]string {
	out := [][2]string{{strings.TrimPrefix(facts.Beta.Reference, "v"), strings.TrimPrefix(facts.Minors[0].Reference, "v")}}
	for i := 1; i < len(facts.Minors); i++ {
		out = append(out, [2]string{strings.TrimPrefix(facts.Minors[i-1].Reference, "v"), strings.TrimPrefix(facts.Minors[i].Reference, "v")})
	}
	out = append(out, [2]string{strings.TrimPrefix(facts.Oldest().Reference, "v"), strings.TrimPrefix(facts.Newest().Reference, "v")})
	// The move from the v1alpha5 APIs, on a Kubernetes 0.31 runs on.
	return append(out, [2]string{"0.31.4", strings.TrimPrefix(facts.Minors[0].Reference, "v")})
}

// envFor is the test environment a pair is planned for: on the newest
// Kubernetes its first release runs on, where the profile's is newer.
func envFor(t *testing.T, e *model.Env, from string) *model.Env {
	v, err := facts.ParseVersion(from)
	if err != nil {
		t.Fatal(err)
	}
	if !facts.Alpha.Holds(v) {
		return e
	}
	cp := *e.Profile
	cp.Cluster.KubernetesVersion = facts.Alpha.Kubernetes[1]
	return model.Resolve(&cp)
}

// TestGoldenPlans: the text and JSON plan of every pair is the one in
// testdata/plans (KARPGEN_UPDATE=1 rewrites them; review the change).
func TestGoldenPlans(t *testing.T) {
	e := prodEnv(t)
	for _, pair := range pairs() {
		t.Run(pair[0]+"-"+pair[1], func(t *testing.T) {
			p, err := upgrade.New(envFor(t, e, pair[0]), upgrade.Options{From: pair[0], To: pair[1]})
			if err != nil {
				t.Fatal(err)
			}
			if p.Blocked() {
				t.Errorf("blocked: %+v", p.Blockers)
			}
			for ext, format := range map[string]string{"txt": printer.FormatText, "json": printer.FormatJSON} {
				var got bytes.Buffer
				if err := printer.Report(&got, format, p); err != nil {
					t.Fatal(err)
				}
				oracle.Golden(t, filepath.Join("testdata", "plans", pair[0]+"-"+pair[1]+"."+ext), got.Bytes())
			}
		})
	}
	// A golden plan of a pair no longer planned (a reference release
	// moved to a newer patch) is stale.
	files, _ := filepath.Glob(filepath.Join("testdata", "plans", "*"))
	for _, f := range files {
		name := strings.TrimSuffix(strings.TrimSuffix(filepath.Base(f), ".json"), ".txt")
		if !slices.ContainsFunc(pairs(), func(p [2]string) bool { return p[0]+"-"+p[1] == name }) {
			t.Errorf("%s plans no pair the test plans: remove it", f)
		}
	}
}

// TestTransitionPolicies: for every adjacent pair, the target's policies
// with the transition policies allow every call of both controllers and
// refuse every misuse (the IAM simulator's scenarios of both minors), and
// each transition document fits IAM's limit for a 100-character cluster.
func TestTransitionPolicies(t *testing.T) {
	e := prodEnv(t)
	long := *e.Profile
	long.Cluster.Name = strings.Repeat("k", 100)
	longEnv := model.Resolve(&long)
	for i := 1; i < len(facts.Minors); i++ {
		from, to := strings.TrimPrefix(facts.Minors[i-1].Reference, "v"), strings.TrimPrefix(facts.Minors[i].Reference, "v")
		p, err := upgrade.New(longEnv, upgrade.Options{From: from, To: to})
		if err != nil {
			t.Fatal(err)
		}
		for _, cp := range p.TransitionPolicies() {
			if size := iampolicy.CompactSize(cp.Document); size > iampolicy.MaxPolicySize {
				t.Errorf("%s -> %s: %s is %d characters", from, to, cp.File, size)
			}
			if len(cp.Name) > 128 {
				t.Errorf("%s -> %s: policy name %q is longer than 128", from, to, cp.Name)
			}
		}
	}
	oracle.Simulator(t)
	for i := 1; i < len(facts.Minors); i++ {
		if testing.Short() && i != len(facts.Minors)-1 {
			continue // -short: the newest pair
		}
		from, to := &facts.Minors[i-1], &facts.Minors[i]
		t.Run(from.Minor+"-"+to.Minor, func(t *testing.T) {
			t.Parallel()
			p, err := upgrade.New(e, upgrade.Options{From: strings.TrimPrefix(from.Reference, "v"), To: strings.TrimPrefix(to.Reference, "v")})
			if err != nil {
				t.Fatal(err)
			}
			files, err := p.Artifacts()
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range []*facts.Minor{from, to} {
				if out, ok := oracle.Simulate(t, files, e.Names, m.Minor); !ok {
					t.Errorf("scenarios of %s:\n%s", m.Minor, out)
				}
			}
		})
	}
}

// TestPlanRefusesBadRequests: what cannot be planned is a clear error.
func TestPlanRefusesBadRequests(t *testing.T) {
	e := prodEnv(t)
	for _, c := range []struct{ from, to, want string }{
		{"", "1.0.1", "To 1.0.1: not newer than 1.0.14"},
		{"", "2.0.0", "To 2.0.0: karpgen knows Karpenter 1.0 to " + facts.Newest().Minor},
		{"", "1.14.9", "To 1.14.9: karpgen knows 1.14 releases up to 1.14.3 (a newer patch has no chart to pull yet)"},
		{"0.30.9", "1.0.14", "From 0.30.9: upgrades start from a v1 minor, from 0.33 to 0.37 (the v1beta1 APIs), or from 0.31 or 0.32 (the v1alpha5 APIs)"},
		{"1.2", "1.3.0", `From: "1.2" is not a Karpenter release version (MAJOR.MINOR.PATCH, e.g. "1.2.3")`},
	} {
		_, err := upgrade.New(e, upgrade.Options{From: c.from, To: c.to})
		if err == nil || err.Error() != c.want {
			t.Errorf("%s -> %s: %v, want %s", c.from, c.to, err, c.want)
		}
	}
	p, err := upgrade.New(e, upgrade.Options{From: "", To: "1.1.10"})
	if err != nil || p.From != "1.0.14" {
		t.Fatalf("from the profile's version: %v %v", p, err)
	}

}

// TestRetiringTheGettingStartedStack: over upstream's getting-started
// templates of 0.32 to 0.37, a profile that adopts the queue and the node
// role is told that the stack still holds them without DeletionPolicy
// Retain (upstream's templates set none), and how to retire it; with
// Retain on both, that deleting it leaves them.
func TestRetiringTheGettingStartedStack(t *testing.T) {
	p := *prodEnv(t).Profile
	p.Karpenter.ExistingInterruptionQueue = p.Cluster.Name
	p.Karpenter.ExistingNodeRole = "KarpenterNodeRole-" + p.Cluster.Name
	e := model.Resolve(&p)
	n := e.Names
	gs := model.GettingStartedStack(n.Cluster)
	dirs, _ := filepath.Glob(filepath.Join(oracle.Dir(t), "gettingstarted-v0.3*"))
	dirs = append(dirs, filepath.Join(oracle.Dir(t), facts.Beta.Reference))
	if len(dirs) < 6 {
		t.Fatalf("getting-started templates: %v", dirs)
	}
	for _, dir := range dirs {
		body, err := os.ReadFile(filepath.Join(dir, "cloudformation.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		for _, retain := range []bool{false, true} {
			text := string(body)
			if retain {
				text = strings.Replace(text, "  KarpenterNodeRole:\n", "  KarpenterNodeRole:\n    DeletionPolicy: Retain\n", 1)
				text = strings.Replace(text, "  KarpenterInterruptionQueue:\n", "  KarpenterInterruptionQueue:\n    DeletionPolicy: Retain\n", 1)
			}
			tmpl, err := cfnpreview.Parse("cloudformation.yaml", []byte(text))
			if err != nil {
				t.Fatal(err)
			}
			st := &live.Stack{Name: gs, Exists: true, Template: tmpl, Status: "CREATE_COMPLETE",
				Resources: []cfnpreview.Live{
					{Logical: "KarpenterNodeRole", Physical: n.NodeRole, Type: "AWS::IAM::Role"},
					{Logical: "KarpenterInterruptionQueue", Physical: "https://sqs." + n.Region + ".amazonaws.com/" + n.Account + "/" + n.Queue, Type: "AWS::SQS::Queue"},
				}}
			c := &live.Cluster{Dir: "cap", Stacks: map[string]*live.Stack{gs: st}}
			plan, err := upgrade.New(e, upgrade.Options{From: facts.Minors[len(facts.Minors)-2].NewestPatch().String(), To: facts.Newest().NewestPatch().String(), Live: c})
			if err != nil {
				t.Fatal(err)
			}
			got := strings.Join(plan.Retirement, "\n")
			want := "KarpenterNodeRole, KarpenterInterruptionQueue have no DeletionPolicy Retain, so deleting the stack deletes them"
			if retain {
				want = "each has DeletionPolicy Retain, so deleting the stack leaves them in the account"
			}
			if !strings.Contains(got, "Stack "+gs+" still holds the node role "+n.NodeRole+" (KarpenterNodeRole), the interruption queue "+n.Queue+" (KarpenterInterruptionQueue)") || !strings.Contains(got, want) {
				t.Errorf("%s (retain %v): %s\nwant it to say %q", filepath.Base(dir), retain, got, want)
			}
		}
	}
}

// TestAdoptingTheEksctlPodIdentityInstall: the getting-started install of
// 0.32 to 0.37 made with eksctl's podIdentityAssociations, its stack as
// upstream's template of each release makes it. A profile that adopts
// the queue and node role but not the association would create a second
// association, which EKS refuses: a blocker naming both lines to adopt.
// Adopting them, the plan creates none, and says that the stack's
// controller policy stays attached to eksctl's role.
func TestAdoptingTheEksctlPodIdentityInstall(t *testing.T) {
	base := *prodEnv(t).Profile
	base.Karpenter.Auth = "podIdentity"
	base.Karpenter.ExistingInterruptionQueue = base.Cluster.Name
	base.Karpenter.ExistingNodeRole = "KarpenterNodeRole-" + base.Cluster.Name
	role := base.Cluster.Name + "-karpenter"
	dirs, _ := filepath.Glob(filepath.Join(oracle.Dir(t), "gettingstarted-v0.3*"))
	dirs = append(dirs, filepath.Join(oracle.Dir(t), facts.Beta.Reference))
	for _, dir := range dirs {
		if filepath.Base(dir) == "gettingstarted-v0.31.4" {
			continue // v1alpha5: an upgrade from there is a migration of its own
		}
		tmpl := gettingStartedTemplate(t, dir)
		for _, adopt := range []bool{false, true} {
			p := base
			if adopt {
				p.Karpenter.ExistingControllerRole, p.Karpenter.ExistingPodIdentityAssociation = role, "a-0abc1def2ghi3jkl4"
			}
			e := model.Resolve(&p)
			n := e.Names
			gs := model.GettingStartedStack(n.Cluster)
			st := &live.Stack{Name: gs, Exists: true, Template: tmpl, Status: "UPDATE_COMPLETE",
				Resources: []cfnpreview.Live{
					{Logical: "KarpenterNodeRole", Physical: n.NodeRole, Type: "AWS::IAM::Role"},
					{Logical: "KarpenterInterruptionQueue", Physical: "https://sqs." + n.Region + ".amazonaws.com/" + n.Account + "/" + n.Queue, Type: "AWS::SQS::Queue"},
					{Logical: "KarpenterControllerPolicy", Physical: n.PolicyARN("KarpenterControllerPolicy-" + n.Cluster), Type: "AWS::IAM::ManagedPolicy"},
				}}
			c := &live.Cluster{Dir: "cap", Stacks: map[string]*live.Stack{gs: st, n.Stack: {Name: n.Stack}},
				Associations: []live.Association{{ID: "a-0abc1def2ghi3jkl4", Namespace: n.Namespace, ServiceAccount: n.ServiceAccount, RoleARN: n.ARN("iam", "", n.Account, "role/"+role)}}}
			c.Know(live.PartAssociations)
			plan, err := upgrade.New(e, upgrade.Options{From: facts.Minors[len(facts.Minors)-2].NewestPatch().String(), To: facts.Newest().NewestPatch().String(), Live: c})
			if err != nil {
				t.Fatal(err)
			}
			var harm []string
			for _, b := range plan.Blockers {
				if b.Rule == "upgrade/stack-harm" {
					harm = append(harm, b.Message)
				}
			}
			retirement := strings.Join(plan.Retirement, "\n")
			stale := "Stack " + gs + "'s controller policy KarpenterControllerPolicy-" + n.Cluster + " stays attached to the adopted role " + role
			if !adopt {
				want := `Adopt it with the role it binds (karpenter.existingControllerRole: "` + role + `", karpenter.existingPodIdentityAssociation: "a-0abc1def2ghi3jkl4")`
				if len(harm) != 1 || !strings.Contains(harm[0], "is already the one Pod Identity association the service account "+n.Namespace+"/"+n.ServiceAccount+" may have") || !strings.Contains(harm[0], want) {
					t.Errorf("%s, not adopted: stack-harm blockers %q, want one naming %q", filepath.Base(dir), harm, want)
				}
				if strings.Contains(retirement, stale) {
					t.Errorf("%s, not adopted: the retirement speaks of the adopted role: %s", filepath.Base(dir), retirement)
				}
				continue
			}
			if len(harm) != 0 {
				t.Errorf("%s, adopted: stack-harm blockers %q", filepath.Base(dir), harm)
			}
			for _, ch := range plan.Stack.Changes {
				if ch.Type == "AWS::EKS::PodIdentityAssociation" || ch.Type == "AWS::IAM::Role" && ch.Logical == "KarpenterControllerRole" {
					t.Errorf("%s, adopted: the deploy still touches %s %s", filepath.Base(dir), ch.Type, ch.Logical)
				}
			}
			if !strings.Contains(retirement, stale) {
				t.Errorf("%s, adopted: retirement %q\nwant it to say %q", filepath.Base(dir), retirement, stale)
			}
		}
	}
}

// TestUpdatingTheGettingStartedStackInPlace takes over the stack of each
// of upstream's getting-started templates, 0.32 to 1.9, as import does
// when the stack holds the queue and node role the install uses: the
// target's template goes to Karpenter-<cluster> itself, keeps the queue
// and node role under upstream's logical IDs, and replaces the
// controller policy where it lives. Where the target splits a single
// policy, the old one's deletion is upstream's own update, not harm, and
// the plan says what eksctl's config must name instead.
func TestUpdatingTheGettingStartedStackInPlace(t *testing.T) {
	p := *prodEnv(t).Profile
	p.Karpenter.Auth = "podIdentity"
	p.Karpenter.ExistingInterruptionQueue, p.Karpenter.ExistingNodeRole = "", ""
	p.Karpenter.InterruptionQueue, p.Karpenter.QueueName, p.Karpenter.NodeRole = true, "", ""
	role := p.Cluster.Name + "-karpenter"
	p.Karpenter.ExistingControllerRole, p.Karpenter.ExistingPodIdentityAssociation = role, "a-0abc1def2ghi3jkl4"
	e := model.Resolve(&p)
	n := e.Names
	gs := model.GettingStartedStack(n.Cluster)
	if n.Stack != gs {
		t.Fatalf("the profile deploys to %s, not the getting-started stack %s", n.Stack, gs)
	}
	dirs, _ := filepath.Glob(filepath.Join(oracle.Dir(t), "gettingstarted-v0.3*"))
	more, _ := filepath.Glob(filepath.Join(oracle.Dir(t), "v*", "cloudformation.yaml"))
	for _, m := range more {
		dirs = append(dirs, filepath.Dir(m))
	}
	tested := 0
	for _, dir := range dirs {
		name := filepath.Base(dir)
		if name == "gettingstarted-v0.31.4" {
			continue // v1alpha5: an upgrade from there is a migration of its own
		}
		tmpl := gettingStartedTemplate(t, dir)
		// What describe-stack-resources prints for a stack deployed
		// from it.
		st := &live.Stack{Name: gs, Exists: true, Template: tmpl, Status: "UPDATE_COMPLETE", Parameters: map[string]string{"ClusterName": n.Cluster}}
		single := false
		for _, id := range slices.Sorted(maps.Keys(tmpl.Resources)) {
			r := tmpl.Resources[id]
			physical := gs + "-" + id + "-1C3X8D0TQ4M7"
			switch {
			case r.Type == "AWS::IAM::Role" && id == "KarpenterNodeRole":
				physical = n.NodeRole
			case r.Type == "AWS::SQS::Queue":
				physical = "https://sqs." + n.Region + ".amazonaws.com/" + n.Account + "/" + n.Queue
			case r.Type == "AWS::IAM::ManagedPolicy" && id == "KarpenterControllerPolicy":
				physical, single = n.PolicyARN("KarpenterControllerPolicy-"+n.Cluster), true
			case r.Type == "AWS::IAM::ManagedPolicy":
				physical = n.PolicyARN("KarpenterController" + id + "-" + n.Cluster)
			}
			st.Resources = append(st.Resources, cfnpreview.Live{Logical: id, Physical: physical, Type: r.Type})
		}
		c := &live.Cluster{Dir: "cap", Stacks: map[string]*live.Stack{gs: st},
			Associations: []live.Association{{ID: "a-0abc1def2ghi3jkl4", Namespace: n.Namespace, ServiceAccount: n.ServiceAccount, RoleARN: n.ARN("iam", "", n.Account, "role/"+role)}}}
		c.Know(live.PartAssociations)
		plan, err := upgrade.New(e, upgrade.Options{From: facts.Minors[len(facts.Minors)-2].NewestPatch().String(), To: facts.Newest().NewestPatch().String(), Live: c})
		if err != nil {
			t.Fatal(err)
		}
		tested++
		for _, b := range plan.Blockers {
			if b.Rule == "upgrade/stack-harm" {
				t.Errorf("%s: %s", name, b.Message)
			}
		}
		if plan.Stack == nil || plan.Stack.Name != gs || !plan.Stack.Exists {
			t.Fatalf("%s: the deploy is not previewed on %s: %+v", name, gs, plan.Stack)
		}
		var deleted []string
		for _, ch := range plan.Stack.Changes {
			switch {
			case ch.Action == cfnpreview.Delete:
				deleted = append(deleted, ch.Logical)
			case ch.Action == cfnpreview.Replace && ch.Type != "AWS::Events::Rule", ch.Action == cfnpreview.Fails:
				t.Errorf("%s: %s %s: %s", name, ch.Action, ch.Logical, ch.Why)
			}
		}
		retirement := strings.Join(plan.Retirement, "\n")
		inPlace := "The deploy updates stack " + gs + " in place, as upstream's upgrade does: its controller policy KarpenterControllerPolicy-" + n.Cluster +
			" gives way to the target's, which the template attaches to the adopted role " + role
		if single {
			if !slices.Equal(deleted, []string{"KarpenterControllerPolicy"}) {
				t.Errorf("%s: deleted %q, want the single controller policy alone", name, deleted)
			}
			if !strings.Contains(retirement, inPlace) || !strings.Contains(retirement, n.PolicyARN("KarpenterControllerNodeLifecyclePolicy-"+n.Cluster)) {
				t.Errorf("%s: retirement %q\nwant it to say %q and name the target's policies", name, retirement, inPlace)
			}
			continue
		}
		if len(deleted) != 0 || retirement != "" {
			t.Errorf("%s: split like the target's, yet deleted %q, retirement %q", name, deleted, retirement)
		}
	}
	if tested < 20 {
		t.Errorf("%d getting-started templates tested, want every one of 0.32 to 1.14", tested)
	}
}

// gettingStartedTemplate is the getting-started template of a release
// of the reference.
func gettingStartedTemplate(t *testing.T, dir string) *cfnpreview.Template {
	t.Helper()
	body, err := os.ReadFile(filepath.Join(dir, "cloudformation.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	tmpl, err := cfnpreview.Parse("cloudformation.yaml", body)
	if err != nil {
		t.Fatal(err)
	}
	return tmpl
}
