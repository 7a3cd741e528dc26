package action

import (
	"os"

	"github.com/karpgen/karpgen/internal/diag"
	"github.com/karpgen/karpgen/internal/iam/guardrails"
	"github.com/karpgen/karpgen/internal/lint"
	"github.com/karpgen/karpgen/internal/model"
)

// Vet checks profiles (karpgen vet): the schema and every rule, with
// support windows as of Today; or a Helm values file in use against a
// chart (Values and Version); or, with ExplainIAM, lists every request of
// the environments' controllers under the guardrails.
type Vet struct {
	Eval
	Dir  string
	Envs []string
	// Today is the day support windows are checked for (YYYY-MM-DD).
	Today string
	// Values and Version check a values file instead of the profiles.
	Values, Version string
	ExplainIAM      bool
	// Workloads are placed on every environment with Karpenter's
	// scheduler; one whose pods would never schedule is refused.
	Workloads []string
}

// Vetted is what vet found: the findings, what was checked (the values
// file, or the environments and whether they are all of the profiles),
// and with ExplainIAM the requests and their decisions.
type Vetted struct {
	Findings []diag.Finding
	// Values is the values file checked, and Minor the chart's minor.
	Values, Minor string
	// Envs are the environments checked.
	Envs []string
	Rows []guardrails.Row
}

// Run vets.
func (v *Vet) Run() (*Vetted, error) {
	switch {
	case v.Values != "":
		if v.Version == "" || len(v.Envs) > 0 {
			return nil, usage("vet: --values FILE needs --version VERSION, and no environment")
		}
		findings, err := VetValues(v.Values, v.Version)
		if err != nil {
			return nil, err
		}
		minor, _ := model.MinorOf(v.Version)
		return &Vetted{Findings: findings, Values: v.Values, Minor: minor}, nil
	case v.Version != "":
		return nil, usage("vet: --version is for --values")
	case v.ExplainIAM && len(v.Envs) == 0:
		return nil, usage("vet: --explain-iam needs the environments named")
	}
	opts := v.options(v.Dir, v.Envs)
	opts.Today, opts.KeepInvalid = v.Today, v.ExplainIAM
	res, err := Check(opts)
	if err != nil {
		return nil, err
	}
	out := &Vetted{Findings: res.Findings, Envs: res.Names}
	if !res.All {
		out.Envs = v.Envs
	}
	if v.ExplainIAM {
		out.Rows, err = Explain(res.Envs)
		return out, err
	}
	if len(v.Workloads) > 0 {
		placed, err := VetWorkloads(res.Envs, v.Workloads)
		if err != nil {
			return nil, err
		}
		out.Findings = diag.Sort(append(out.Findings, placed...))
	}
	return out, nil
}

// VetValues checks a Helm values file in use against the chart of a
// Karpenter version (karpgen vet --values FILE --version V).
func VetValues(file, version string) ([]diag.Finding, error) {
	minor, err := model.MinorOf(version)
	if err != nil {
		return nil, usage("vet: --version: %v", err)
	}
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	return diag.Sort(lint.CheckValues(file, data, minor)), nil
}

// Explain is every request the controller of each environment makes, with
// its decision under the guardrails and the statements that decide it
// (karpgen vet --explain-iam).
func Explain(envs []*model.Env) ([]guardrails.Row, error) {
	var rows []guardrails.Row
	for _, e := range envs {
		r, err := guardrails.Explain(e)
		if err != nil {
			return nil, err
		}
		rows = append(rows, r...)
	}
	return rows, nil
}
