package doctor

import (
	"encoding/json"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/karpgen/karpgen/internal/iam/guardrails"
	"github.com/karpgen/karpgen/internal/iam/iampolicy"
	"github.com/karpgen/karpgen/internal/iameval"
	"github.com/karpgen/karpgen/internal/model"
)

// checkOwnRole judges a controller role the team made by what its
// policies allow, not by the names of karpgen's: every request the
// controller makes for the profile is evaluated against the role's
// inline policies and its attached customer managed policies (the default
// version), and each kind of request they do not allow is a finding,
// with the statement that came closest and the bundle's statement that
// allows it. AWS managed policies attached to the role are not in the
// capture; a finding says which were not read.
func checkOwnRole(c *checkRun) {
	n := c.e.Names
	var d roleDetails
	if !c.load("iam-controller-role-details.json", &d, "role "+n.ControllerRole, "its policies", "") || c.dry {
		return
	}
	if len(d.Roles) == 0 {
		c.report("role "+n.ControllerRole, "the role karpenter.existingControllerRole names", "absent", "create the role, or name the controller's role in karpenter.existingControllerRole")
		return
	}
	policies, unread := roleDetailPolicies(c, "role "+n.ControllerRole, d)
	unmet, err := guardrails.AgainstRole(c.e, policies)
	if err != nil {
		c.report("role "+n.ControllerRole, "policies karpgen can evaluate", err.Error(), "")
		return
	}
	// One finding per cause: the closest statements of many requests
	// fail on the same condition (a tag key copied wrong) or none takes
	// in a kind of resource (the spot request).
	type cause struct {
		actions []string            // in the order first met
		kinds   map[string][]string // resource kinds by action
		closest string
		bundle  iameval.Ref
	}
	causes := map[string]*cause{}
	var order []string
	for _, u := range unmet {
		why, closest := causeOf(u.Result)
		cs, ok := causes[why]
		if !ok {
			cs = &cause{kinds: map[string][]string{}, closest: closest, bundle: u.Bundle}
			causes[why] = cs
			order = append(order, why)
		}
		if _, seen := cs.kinds[u.Action]; !seen {
			cs.actions = append(cs.actions, u.Action)
		}
		for _, k := range u.Resources {
			if !slices.Contains(cs.kinds[u.Action], k) {
				cs.kinds[u.Action] = append(cs.kinds[u.Action], k)
			}
		}
	}
	for _, why := range order {
		cs := causes[why]
		found := why
		if cs.closest != "" {
			found += " (closest: " + cs.closest + ")"
		}
		if len(unread) > 0 {
			found += "; not read: " + strings.Join(unread, ", ")
		}
		fix := "allow them in the role's policy"
		if cs.bundle.Policy != "" {
			fix = "write it as the bundle's " + strings.TrimPrefix(cs.bundle.String(), "controller ") + " does (" + c.file(model.IAMFile(policyFile(c, cs.bundle.Policy))) + "), or attach the bundle's policies"
		}
		var requests []string
		for _, a := range cs.actions {
			requests = append(requests, a+" on "+strings.Join(cs.kinds[a], ", "))
		}
		c.report("role "+n.ControllerRole, "its policies allow "+strings.Join(requests, "; "), found, fix)
	}
}

// causeOf says why a request is not allowed, alike for every request
// with the same cause: the conditions the closest statement fails on
// (a condition on a key the request does not carry, by the tag key it
// tests), an explicit deny, or that no statement takes it in.
func causeOf(r iameval.Result) (why, closest string) {
	if len(r.By) > 0 {
		var by []string
		for _, x := range r.By {
			by = append(by, x.String())
		}
		return "denied by " + strings.Join(by, ", "), ""
	}
	if len(r.Near) == 0 {
		return "no statement of its policies takes these requests in (their actions on these resources)", ""
	}
	best := r.Near[0]
	for _, x := range r.Near[1:] {
		if len(x.Failed) < len(best.Failed) {
			best = x
		}
	}
	var keys []string
	for _, f := range best.Failed {
		key := f.Key
		for _, prefix := range []string{"aws:RequestTag/", "aws:ResourceTag/"} {
			if tag, ok := strings.CutPrefix(f.Key, prefix); ok {
				key = "tag " + tag
			}
		}
		if !f.Present {
			key += ", which the requests do not carry"
		}
		if !slices.Contains(keys, key) {
			keys = append(keys, key)
		}
	}
	return "the statements that take them in test " + strings.Join(keys, " and "), best.String()
}

// roleDetailPolicies are the policies of the first role of a capture's
// authorization details that the evaluator reads: its inline policies
// and the default version of each attached customer managed policy.
// unread are the ARNs of attached policies whose documents the details
// do not hold (AWS managed ones).
func roleDetailPolicies(c *checkRun, resource string, d roleDetails) (policies []*iameval.Policy, unread []string) {
	role := d.Roles[0]
	for _, ip := range role.RolePolicyList {
		if p := parsePolicy(c, resource, "inline policy "+ip.PolicyName, ip.PolicyDocument); p != nil {
			policies = append(policies, p)
		}
	}
	for _, ap := range role.AttachedManagedPolicies {
		found := false
		for _, mp := range d.Policies {
			if mp.Arn != ap.PolicyArn {
				continue
			}
			for _, v := range mp.PolicyVersionList {
				if v.IsDefaultVersion {
					found = true
					if p := parsePolicy(c, resource, "policy "+ap.PolicyName, v.Document); p != nil {
						policies = append(policies, p)
					}
				}
			}
		}
		if !found {
			unread = append(unread, ap.PolicyArn)
		}
	}
	return policies, unread
}

// parsePolicy reads a policy document as the CLI prints it (an object, or
// the API's URL-encoded string); one that does not read is a finding on
// the resource (the role).
func parsePolicy(c *checkRun, resource, name string, raw json.RawMessage) *iameval.Policy {
	doc := []byte(raw)
	if s, err := strconv.Unquote(string(raw)); err == nil {
		if u, err := url.QueryUnescape(s); err == nil {
			doc = []byte(u)
		}
	}
	p, err := iameval.Parse(name, doc, false)
	if err != nil {
		c.report(resource, "a policy document karpgen reads", name+": "+err.Error(), "")
		return nil
	}
	return p
}

// policyFile is the bundle's file of the controller policy named
// "controller policy <name>".
func policyFile(c *checkRun, ref string) string {
	name := strings.TrimPrefix(ref, "controller policy ")
	for _, cp := range iampolicy.ControllerPolicies(c.e.Facts, c.e.Names, c.e.IAMGates) {
		if cp.Name == name {
			return cp.File
		}
	}
	return ""
}
