// Package guardrails proves that the organization's guardrails around
// IAM (service control policies by level, resource control policies, a
// permissions boundary) let through every request Karpenter's controller
// makes for a profile. It reads the documents the profile names from its
// folder, lists the requests the controller will make for the profile's
// pools, node classes and queue (their tags, region, instance types,
// metadata options and volumes), and evaluates each with internal/iameval
// against the bundle's own controller policy.
package guardrails

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/karpgen/karpgen/internal/diag"
	"github.com/karpgen/karpgen/internal/iameval"
	"github.com/karpgen/karpgen/internal/model"
	"github.com/karpgen/karpgen/internal/profile"
	"github.com/karpgen/karpgen/internal/util/safefs"
)

// maxDocument bounds a policy document; IAM's own limits are far lower.
const maxDocument = 1 << 20

// Rule is the ID of the findings about the documents themselves.
const Rule = "iam/guardrail-document"

// Load reads the documents a profile names. pos places a profile path
// ("guardrails.organization[0].policies[1]") for a finding about a file
// that cannot be read.
func Load(fsys fs.FS, dir string, g *profile.Guardrails, pos func(string) diag.Pos) (*model.Guardrails, []diag.Finding) {
	if g == nil {
		return nil, nil
	}
	out := &model.Guardrails{Dir: dir}
	var findings []diag.Finding
	read := func(at, name string, rcp bool) *iameval.Policy {
		clean := path.Clean(name)
		if !fs.ValidPath(clean) {
			findings = append(findings, diag.Finding{Rule: Rule, Severity: diag.Error, Path: at, Pos: pos(at),
				Message: fmt.Sprintf("%q is not a path inside the profiles folder", name), Hint: "name the document by its path relative to the profiles folder"})
			return nil
		}
		data, err := safefs.ReadFS(fsys, clean, maxDocument)
		if err != nil {
			findings = append(findings, diag.Finding{Rule: Rule, Severity: diag.Error, Path: at, Pos: pos(at),
				Message: fmt.Sprintf("policy document %s: %v", name, err), Hint: "put the document in the profiles folder as a regular JSON file"})
			return nil
		}
		p, err := iameval.Parse(clean, data, rcp)
		if err != nil {
			f := diag.Finding{Rule: Rule, Severity: diag.Error, Path: at, Pos: pos(at), Message: err.Error(),
				Hint: "fix the document: karpgen evaluates the IAM policy language's elements, operators and variables, and refuses what it cannot evaluate"}
			var pe *iameval.Error
			if errors.As(err, &pe) && pe.Line > 0 {
				f.Pos = diag.Pos{File: filepath.Join(dir, filepath.FromSlash(clean)), Line: pe.Line, Col: pe.Col}
			}
			findings = append(findings, f)
			return nil
		}
		return p
	}
	for i, l := range g.Organization {
		level := iameval.Level{Name: l.Name}
		for j, name := range l.Policies {
			if p := read(fmt.Sprintf("guardrails.organization[%d].policies[%d]", i, j), name, false); p != nil {
				level.Policies = append(level.Policies, p)
			}
		}
		out.SCPs = append(out.SCPs, level)
	}
	rcps := iameval.Level{Name: "organization"}
	for i, name := range g.ResourceControlPolicies {
		if p := read(fmt.Sprintf("guardrails.resourceControlPolicies[%d]", i), name, true); p != nil {
			rcps.Policies = append(rcps.Policies, p)
		}
	}
	if len(rcps.Policies) > 0 {
		out.RCPs = []iameval.Level{rcps}
	}
	if g.PermissionsBoundary != "" {
		out.Boundary = read("guardrails.permissionsBoundary", g.PermissionsBoundary, false)
	}
	if g.OrganizationID == "" {
		findings = append(findings, orgKeys(out, dir)...)
	}
	if len(findings) > 0 {
		return nil, findings
	}
	return out, nil
}

// orgKeys finds statements that test the organization of a request's
// principal, source or resource: every request within the organization
// carries it, so that without guardrails.organizationID karpgen would
// decide them as requests from outside it.
func orgKeys(g *model.Guardrails, dir string) []diag.Finding {
	var all []*iameval.Policy
	for _, l := range append(slices.Clone(g.SCPs), g.RCPs...) {
		all = append(all, l.Policies...)
	}
	if g.Boundary != nil {
		all = append(all, g.Boundary)
	}
	var out []diag.Finding
	for _, p := range all {
		for _, st := range p.Statements {
			for _, c := range st.Conditions {
				if k := strings.ToLower(c.Key); k != "aws:principalorgid" && k != "aws:sourceorgid" && k != "aws:resourceorgid" {
					continue
				}
				out = append(out, diag.Finding{Rule: Rule, Severity: diag.Error, Path: "guardrails.organizationID",
					Pos:     diag.Pos{File: filepath.Join(dir, filepath.FromSlash(p.Name)), Line: st.Line, Col: st.Col},
					Message: fmt.Sprintf("%s tests %s, which every request of the organization carries, and the profile does not name the organization", iameval.Ref{Policy: p.Name, Sid: st.Sid, Index: st.Index}, c.Key),
					Hint:    "set guardrails.organizationID to the organization's ID (o-...), so that the requests carry it as AWS sends them"})
				break
			}
		}
	}
	return out
}
