package guardrails

import (
	"fmt"
	"slices"

	"github.com/karpgen/karpgen/internal/iameval"
	"github.com/karpgen/karpgen/internal/model"
)

// Unmet is a kind of request the controller makes for the profile that a
// role's own policies do not allow: the action, the kinds of resource it
// is denied on, what came closest, and the statement of the bundle's
// policies that allows it.
type Unmet struct {
	Action    string
	Resources []string
	Result    iameval.Result
	Bundle    iameval.Ref
}

// AgainstRole evaluates every request the controller makes for the
// environment (its own calls, not a service's) under policies, a role's
// attached and inline policies as the account holds them, with the
// guardrails' boundary and organization policies when the profile has
// them. One Unmet per action and deciding outcome, in request order.
func AgainstRole(e *model.Env, policies []*iameval.Policy) ([]Unmet, error) {
	if e.Facts == nil {
		return nil, nil
	}
	bundle, err := identity(e)
	if err != nil {
		return nil, err
	}
	p := underGuardrails(e.Guardrails, policies)
	var out []Unmet
	index := map[string]int{}
	for _, r := range Requests(e) {
		if r.Service != "" {
			continue
		}
		res, err := iameval.Evaluate(p, r.Request)
		if err != nil {
			return nil, err
		}
		if res.Decision == iameval.Allowed {
			continue
		}
		kind := resourceKind(r.Resource)
		key := fmt.Sprint(r.Action, res.Decision, res.Missing, res.By, res.Near)
		if i, ok := index[key]; ok {
			if !slices.Contains(out[i].Resources, kind) {
				out[i].Resources = append(out[i].Resources, kind)
			}
			continue
		}
		u := Unmet{Action: r.Action, Resources: []string{kind}, Result: res}
		if b, err := iameval.Evaluate(iameval.Policies{Identity: bundle}, r.Request); err == nil && len(b.By) > 0 {
			u.Bundle = b.By[0]
		}
		index[key] = len(out)
		out = append(out, u)
	}
	return out, nil
}
