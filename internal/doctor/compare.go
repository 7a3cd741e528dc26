package doctor

import (
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"

	"github.com/karpgen/karpgen/internal/iam/iampolicy"
	"github.com/karpgen/karpgen/internal/model"
	"github.com/karpgen/karpgen/internal/profile"
	"github.com/karpgen/karpgen/internal/util/escape"
)

// The comparisons the checks share: policies statement by statement,
// trust, selector terms as Karpenter matches them, values key by key.

// comparePolicy holds a captured controller policy to the rendered one,
// statement by statement (by Sid): a statement absent, extra, or with
// other actions (named), resources or conditions.
func (c *checkRun) comparePolicy(cp iampolicy.ControllerPolicy, have map[string]any) {
	want := statementsBySid(iampolicy.Normalize(cp.Document))
	got := statementsBySid(iampolicy.Normalize(have))
	for _, sid := range slices.Sorted(maps.Keys(want)) {
		g, ok := got[sid]
		if !ok {
			c.report("policy "+cp.Name, "statement "+sid+", which grants "+strings.Join(iampolicy.Strings(want[sid]["Action"]), ", "), "absent", c.deployIAM())
			continue
		}
		if reflect.DeepEqual(g, want[sid]) {
			continue
		}
		missing, extra := actionDiff(want[sid], g)
		found := "different resources or conditions"
		if len(missing) > 0 || len(extra) > 0 {
			found = fmt.Sprintf("missing actions %s; extra actions %s", orNone(strings.Join(missing, ", ")), orNone(strings.Join(extra, ", ")))
		}
		c.report("policy "+cp.Name+" statement "+sid, "the statement of "+c.file(model.IAMFile(cp.File)), found, c.deployIAM())
	}
	for _, sid := range slices.Sorted(maps.Keys(got)) {
		if _, ok := want[sid]; !ok {
			c.report("policy "+cp.Name, "no statement "+sid, "statement "+sid, c.deployIAM())
		}
	}
}

// statementsBySid are a policy's statements by Sid (by place when it has
// none).
func statementsBySid(doc any) map[string]map[string]any {
	out := map[string]map[string]any{}
	m, _ := doc.(map[string]any)
	sts, _ := m["Statement"].([]any)
	for i, st := range sts {
		s, _ := st.(map[string]any)
		sid, _ := s["Sid"].(string)
		if sid == "" {
			sid = fmt.Sprintf("#%d", i)
		}
		out[sid] = s
	}
	return out
}

func actionDiff(want, got map[string]any) (missing, extra []string) {
	return iampolicy.Diff(iampolicy.Strings(got["Action"]), iampolicy.Strings(want["Action"]))
}

// trusts reports whether a trust policy lets the principal (of a kind:
// Service, Federated) assume the role.
func trusts(doc map[string]any, kind, principal string) bool {
	sts, _ := doc["Statement"].([]any)
	for _, st := range sts {
		s, _ := st.(map[string]any)
		if s["Effect"] != "Allow" {
			continue
		}
		p, _ := s["Principal"].(map[string]any)
		if slices.Contains(iampolicy.Strings(p[kind]), principal) {
			return true
		}
	}
	return false
}

// matchesTerms evaluates selector terms as Karpenter does: terms are
// ORed; a term's tags must all match ("*" is any value); id and name
// match exactly.
func matchesTerms(terms []profile.SelectorTerm, id, name string, tags []awsTag) bool {
	for _, t := range terms {
		switch {
		case t.ID != "":
			if t.ID == id {
				return true
			}
		case t.Name != "":
			if t.Name == name {
				return true
			}
		case len(t.Tags) > 0:
			if tagsMatch(tags, t.Tags) {
				return true
			}
		}
	}
	return false
}

func termsText(terms []profile.SelectorTerm) string {
	var parts []string
	for _, t := range terms {
		switch {
		case t.ID != "":
			parts = append(parts, "id "+t.ID)
		case t.Name != "":
			parts = append(parts, "name "+t.Name)
		default:
			parts = append(parts, "tags "+tagsText(t.Tags))
		}
	}
	return strings.Join(parts, " or ")
}

// tagFix is the fix that tags subnets or security groups for a node
// class's selector: through Terraform's module input where the profile
// says Terraform makes them (module "vpc" or "eks"), since the next apply
// removes a tag added with the AWS CLI; else the AWS CLI command cmd.
func (c *checkRun) tagFix(terms []profile.SelectorTerm, cmd, module string) string {
	fix := tagFix(terms, cmd)
	t := c.e.Profile.Cluster.Owners.Terraform
	if t == nil || !strings.HasPrefix(fix, "aws ") {
		return fix
	}
	name, input := t.VPCModule, "private_subnet_tags"
	if module == "eks" {
		name, input = t.EKSModule, "node_security_group_tags"
	}
	for _, term := range terms {
		for _, k := range slices.Sorted(maps.Keys(term.Tags)) {
			return fmt.Sprintf("Terraform makes them (cluster.owners.terraform): add %q = %q to %s of module.%s, then %s (a tag added with the AWS CLI goes at the next apply)",
				k, term.Tags[k], input, name, escape.ShellJoin("terraform", "-chdir="+t.Dir, "apply"))
		}
	}
	return fix
}

func tagFix(terms []profile.SelectorTerm, cmd string) string {
	for _, t := range terms {
		if len(t.Tags) > 0 {
			var tags []string
			for _, k := range slices.Sorted(maps.Keys(t.Tags)) {
				tags = append(tags, "Key="+k+",Value="+t.Tags[k])
			}
			return "aws " + cmd + " --tags " + escape.ShellJoin(tags...)
		}
	}
	return "select existing ones in the node class"
}

func usesSpot(e *model.Env) bool {
	for _, np := range e.Profile.NodePools {
		if slices.Contains(np.CapacityTypes, "spot") {
			return true
		}
	}
	return false
}

// diffKeys lists the dotted keys where two JSON values differ.
func diffKeys(prefix string, have, want any) []valueDiff {
	hm, hok := have.(map[string]any)
	wm, wok := want.(map[string]any)
	if !hok || !wok {
		if reflect.DeepEqual(have, want) {
			return nil
		}
		return []valueDiff{{orNone(prefix), have, want}}
	}
	var out []valueDiff
	keys := map[string]bool{}
	for k := range hm {
		keys[k] = true
	}
	for k := range wm {
		keys[k] = true
	}
	for _, k := range slices.Sorted(maps.Keys(keys)) {
		p := k
		if prefix != "" {
			p = prefix + "." + k
		}
		out = append(out, diffKeys(p, hm[k], wm[k])...)
	}
	return out
}

// valueDiff is a key whose value differs, with both values.
type valueDiff struct {
	Key        string
	Have, Want any
}

// valueText is a value of the Helm values as the report shows it.
func valueText(v any) string {
	if v == nil {
		return "(unset)"
	}
	return compact(v)
}

func compact(v any) string {
	data, _ := json.Marshal(v)
	return string(data)
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}
