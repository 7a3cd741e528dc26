package conformance

import (
	"bytes"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/karpgen/karpgen/generators"
	"github.com/karpgen/karpgen/internal/action"
	"github.com/karpgen/karpgen/internal/doctor"
	"github.com/karpgen/karpgen/internal/facts"
	"github.com/karpgen/karpgen/internal/iam/iampolicy"
	"github.com/karpgen/karpgen/internal/load"
	"github.com/karpgen/karpgen/internal/model"
	"github.com/karpgen/karpgen/internal/plan/upgrade"
	"github.com/karpgen/karpgen/internal/printer"
	"github.com/karpgen/karpgen/internal/profile"
	"github.com/karpgen/karpgen/internal/templates"
)

// arnRE finds an ARN in any text: JSON, YAML, markdown or a shell script.
var arnRE = regexp.MustCompile("arn:[a-z0-9-]*:[^\\s\"'`,)\\]}]*")

// TestEveryARNIsTheEnvironments renders every template's environments in
// every partition, with IRSA as well as Pod Identity, and reads every
// ARN of what karpgen writes for them: the bundle, the doctor's capture
// script, and the upgrade plan from the oldest minor (its text, markdown,
// JSON and files). Each ARN is of the environment's partition, region
// and account (or AWS's, for a managed policy), and one that names a
// single resource is one the model names: the cluster, the two roles,
// the queue, the OIDC provider, a controller policy (an upgrade's
// transition policies too) or a managed policy of the node role.
func TestEveryARNIsTheEnvironments(t *testing.T) {
	checked := 0
	regions := []string{"eu-west-1", "cn-north-1", "us-gov-west-1"}
	if testing.Short() {
		regions = regions[:1] // -short: the commercial partition
	}
	for _, name := range templates.Names() {
		for _, region := range regions {
			for _, e := range templateEnvs(t, name, region) {
				for _, auth := range []string{profile.AuthPodIdentity, profile.AuthIRSA} {
					p := *e.Profile
					p.Karpenter.Auth = auth
					if auth == profile.AuthIRSA {
						p.Cluster.OIDCIssuer = "https://oidc.eks." + region + "." + e.Names.URLSuffix + "/id/EXAMPLE"
					}
					env := model.Resolve(&p)
					texts := writtenFor(t, env)
					named := modelARNs(env)
					for where, text := range texts {
						for _, arn := range arnRE.FindAllString(text, -1) {
							checked++
							if problem := arnProblem(env, named, arn); problem != "" {
								t.Errorf("%s %s %s, %s: %s %s", name, env.Name, region, where, arn, problem)
							}
						}
					}
				}
			}
		}
	}
	t.Logf("%d ARNs read", checked)
	if checked < 1000 {
		t.Errorf("only %d ARNs read", checked)
	}
}

// templateEnvs loads a template's environments for a region.
func templateEnvs(t *testing.T, name, region string) []*model.Env {
	t.Helper()
	newest := facts.Newest()
	files, err := templates.Render(name, templates.Params{
		Name: "acme", Region: region, Account: "111122223333",
		KarpenterVersion: strings.TrimPrefix(newest.Reference, "v"), KubernetesVersion: newest.Kubernetes[1],
	})
	if err != nil {
		t.Fatal(err)
	}
	fsys := fstest.MapFS{}
	for f, data := range files {
		fsys[f] = &fstest.MapFile{Data: data}
	}
	res, err := action.Check(action.Options{Folder: &load.Folder{FS: fsys, Path: name}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Envs) == 0 {
		t.Fatalf("template %s in %s: %v", name, region, res.Findings)
	}
	return res.Envs
}

// writtenFor is every text karpgen writes for an environment, by where.
func writtenFor(t *testing.T, e *model.Env) map[string]string {
	t.Helper()
	out := map[string]string{"doctor capture script": doctor.Script(e)}
	b, err := generators.Render(e)
	if err != nil {
		t.Fatal(err)
	}
	for path, data := range b.Files {
		out[path] = string(data)
	}
	// The plan from the oldest minor, on a Kubernetes version both ends
	// support, so that it is not blocked and writes its files.
	old := *e.Profile
	old.Cluster.KubernetesVersion = facts.Oldest().Kubernetes[1]
	plan, err := upgrade.New(model.Resolve(&old), upgrade.Options{From: strings.TrimPrefix(facts.Oldest().Reference, "v"), To: e.Version.String()})
	if err != nil {
		t.Fatal(err)
	}
	if plan.Blocked() {
		t.Fatalf("the plan of %s from %s is blocked: %v", e.Name, facts.Oldest().Reference, plan.Blockers)
	}
	for name, format := range map[string]string{"text": printer.FormatText, "markdown": printer.FormatMarkdown, "JSON": printer.FormatJSON} {
		var b bytes.Buffer
		if err := printer.Report(&b, format, plan); err != nil {
			t.Fatal(err)
		}
		out["upgrade plan ("+name+")"] = b.String()
	}
	files, err := plan.Artifacts()
	if err != nil {
		t.Fatal(err)
	}
	for path, data := range files {
		out["upgrade/"+path] = string(data)
	}
	return out
}

// modelARNs are the ARNs of single resources the model names for an
// environment.
func modelARNs(e *model.Env) []string {
	n := e.Names
	out := []string{n.ClusterARN, n.NodeRoleARN, n.ControllerRoleARN, n.QueueARN, n.OIDCProviderARN, n.BoundaryARN}
	for i := range facts.Minors {
		m := &facts.Minors[i]
		for _, p := range iampolicy.ControllerPolicies(m, n, e.IAMGates) {
			out = append(out, n.PolicyARN(p.Name))
		}
		for _, p := range m.NodeRolePolicies {
			out = append(out, n.ManagedPolicyARN(p))
		}
	}
	// An upgrade plan's transition policies.
	for i := 1; i < 10; i++ {
		out = append(out, n.PolicyARN(n.ControllerPolicyName(fmt.Sprintf("Transition%d", i))))
	}
	return slices.DeleteFunc(out, func(s string) bool { return s == "" })
}

// arnProblem says what is wrong with an ARN written for e, "" if nothing.
func arnProblem(e *model.Env, named []string, arn string) string {
	parts := strings.SplitN(arn, ":", 6)
	if len(parts) < 6 {
		return "is not partition:service:region:account:resource"
	}
	partition, service, region, account, resource := parts[1], parts[2], parts[3], parts[4], parts[5]
	n := e.Names
	switch {
	case partition != n.Partition:
		return "is of partition " + partition + ", the environment's is " + n.Partition
	case region != "" && region != n.Region:
		return "is of region " + region + ", the environment's is " + n.Region
	case account == "aws" && (service != "iam" || !strings.HasPrefix(resource, "policy/")):
		return "names AWS's account for something other than a managed policy"
	case account != "" && account != "*" && account != "aws" && account != n.Account:
		return "is of account " + account + ", the environment's is " + n.Account
	case !strings.Contains(resource, "*") && !slices.Contains(named, arn):
		return "names a resource the model does not name"
	}
	return ""
}
