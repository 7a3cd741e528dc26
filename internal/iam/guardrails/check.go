package guardrails

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/karpgen/karpgen/internal/diag"
	"github.com/karpgen/karpgen/internal/iam/iampolicy"
	"github.com/karpgen/karpgen/internal/iameval"
	"github.com/karpgen/karpgen/internal/model"
)

// Denial is a request the guardrails refuse (one per profile field,
// action, resource and deciding statement; launch requests of several
// instance types collapse into one).
type Denial struct {
	Request
	Result iameval.Result
	// Statements are the deciding statements with their positions.
	Statements []Statement
	// What are the requests denied alike ("ec2:RunInstances on instance").
	What []string
	// Hint says how to change the profile (or the guardrails).
	Hint string
	// Boundary names the boundary document, and Level the documents of
	// the organization level, that allowed nothing for an implicit deny.
	Boundary string
	Level    []string
}

// Statement is a deciding statement and where it is.
type Statement struct {
	Ref iameval.Ref
	Pos diag.Pos
	St  iameval.Statement
}

// identity reads the bundle's controller policies as the identity
// policies of the requests.
func identity(e *model.Env) ([]*iameval.Policy, error) {
	var out []*iameval.Policy
	for _, cp := range iampolicy.ControllerPolicies(e.Facts, e.Names, e.IAMGates) {
		doc, err := json.Marshal(cp.Document)
		if err != nil {
			return nil, err
		}
		p, err := iameval.Parse("controller policy "+cp.Name, doc, false)
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, nil
}

// Uncertain is a request allowed only because it lacks condition keys a
// guardrail's deny tests: if the controller's real request carries them,
// the statement may deny it.
type Uncertain struct {
	Request
	Statement Statement
	Keys      []string
}

// Uncertainties lists, once per profile field and statement, the allowed
// requests a guardrail's deny would meet but for keys they lack.
func Uncertainties(e *model.Env) ([]Uncertain, error) {
	g := e.Guardrails
	if g == nil || e.Facts == nil {
		return nil, nil
	}
	var docs []*iameval.Policy
	for _, l := range append(slices.Clone(g.SCPs), g.RCPs...) {
		docs = append(docs, l.Policies...)
	}
	if g.Boundary != nil {
		docs = append(docs, g.Boundary)
	}
	seen := map[string]bool{}
	var out []Uncertain
	for _, r := range Requests(e) {
		for _, p := range docs {
			abs, err := iameval.Absent(p, "Deny", r.Request)
			if err != nil {
				return nil, err
			}
			for _, a := range abs {
				key := fmt.Sprint(r.Path, a.Ref, a.Keys)
				if seen[key] {
					continue
				}
				seen[key] = true
				out = append(out, Uncertain{Request: r, Statement: locate(g, a.Ref), Keys: a.Keys})
			}
		}
	}
	return out, nil
}

// Check evaluates every request of the environment under its guardrails.
// Nothing is checked without guardrails or without facts.
func Check(e *model.Env) ([]Denial, error) {
	g := e.Guardrails
	if g == nil || e.Facts == nil {
		return nil, nil
	}
	ids, err := identity(e)
	if err != nil {
		return nil, err
	}
	policies := underGuardrails(g, ids)
	var out []Denial
	index := map[string]int{}
	for _, r := range Requests(e) {
		res, err := evaluate(policies, r)
		if err != nil {
			return nil, err
		}
		if res.Decision == iameval.Allowed {
			continue
		}
		if res.Decision == iameval.ImplicitlyDenied && res.Missing == "identity" {
			continue // the bundle's own policy: not the guardrails' doing (the simulator tests cover it)
		}
		// One finding per profile field and deciding statements: the
		// requests they deny are listed in it.
		key := fmt.Sprint(r.Path, res.Decision, res.Missing, res.By)
		what := r.Action + " on " + resourceKind(r.Resource)
		if i, ok := index[key]; ok {
			out[i].Types = append(out[i].Types, r.Types...)
			if !slices.Contains(out[i].What, what) {
				out[i].What = append(out[i].What, what)
			}
			continue
		}
		d := Denial{Request: r, Result: res, What: []string{what}}
		switch {
		case res.Missing == "boundary" && g.Boundary != nil:
			d.Boundary = g.Boundary.Name
		case strings.HasPrefix(res.Missing, "scp:"):
			for _, l := range g.SCPs {
				if "scp:"+l.Name == res.Missing {
					for _, p := range l.Policies {
						d.Level = append(d.Level, p.Name)
					}
				}
			}
		}
		for _, ref := range res.By {
			d.Statements = append(d.Statements, locate(g, ref))
		}
		index[key] = len(out)
		out = append(out, d)
	}
	for i := range out {
		out[i].Hint = hint(e, out[i])
	}
	return out, nil
}

// allowAll stands for the resource policy that admits a service's
// delivery (the bundle's queue policy admits EventBridge's).
var allowAll = &iameval.Policy{Name: "the queue policy", Statements: []iameval.Statement{{Effect: "Allow", Actions: []string{"*"}, Resources: []string{"*"}}}}

// evaluate decides a request: the controller's under every policy, a
// service's under the resource control policies alone.
func evaluate(p iameval.Policies, r Request) (iameval.Result, error) {
	if r.Service != "" {
		p = iameval.Policies{Identity: []*iameval.Policy{allowAll}, RCPs: p.RCPs}
	}
	return iameval.Evaluate(p, r.Request)
}

// locate finds a deciding statement in the guardrails' documents.
func locate(g *model.Guardrails, ref iameval.Ref) Statement {
	var all []*iameval.Policy
	for _, l := range append(slices.Clone(g.SCPs), g.RCPs...) {
		all = append(all, l.Policies...)
	}
	if g.Boundary != nil {
		all = append(all, g.Boundary)
	}
	for _, p := range all {
		if p.Name != ref.Policy || ref.Index >= len(p.Statements) {
			continue
		}
		st := p.Statements[ref.Index]
		return Statement{Ref: ref, St: st, Pos: diag.Pos{File: filepath.Join(g.Dir, filepath.FromSlash(p.Name)), Line: st.Line, Col: st.Col}}
	}
	return Statement{Ref: ref}
}

// resourceKind is the type of an ARN's resource ("instance"), or the ARN.
func resourceKind(arn string) string {
	parts := strings.SplitN(arn, ":", 6)
	if len(parts) < 6 {
		return arn
	}
	kind, _, _ := strings.Cut(parts[5], "/")
	return kind
}

// keys lists the condition keys of the deciding statements.
func (d Denial) keys() []string {
	var out []string
	for _, s := range d.Statements {
		for _, c := range s.St.Conditions {
			if !slices.Contains(out, c.Key) {
				out = append(out, c.Key)
			}
		}
	}
	return out
}

// hint says what would let the request through, from the keys the
// deciding statements test.
func hint(e *model.Env, d Denial) string {
	switch {
	case d.Result.Missing == "boundary" && len(d.Result.Near) > 0:
		return fmt.Sprintf("%s takes in %s but tests what these requests do not carry: change its condition to one they meet (the key they carry, the value they have)", d.Result.Near[0].Ref, d.Action)
	case d.Result.Missing == "boundary":
		return fmt.Sprintf("the permissions boundary must allow %s on %s: add it to the boundary's allowed actions", d.Action, resourceKind(d.Resource))
	case strings.HasPrefix(d.Result.Missing, "scp:"):
		return fmt.Sprintf("the organization level %q allows nothing for %s: attach FullAWSAccess or an allow for it there", strings.TrimPrefix(d.Result.Missing, "scp:"), d.Action)
	}
	class := "nodeClasses." + d.Class
	var fixes []string
	for _, k := range d.keys() {
		switch {
		case strings.HasPrefix(k, "aws:RequestTag/"):
			tag := strings.TrimPrefix(k, "aws:RequestTag/")
			if _, ok := e.Profile.NodeClasses[d.Class].Tags[tag]; !ok && d.Class != "" {
				fixes = append(fixes, fmt.Sprintf("add the tag %q to %s.tags", tag, class))
			} else if d.Class != "" {
				fixes = append(fixes, fmt.Sprintf("give %s.tags[%q] a value the statement allows", class, tag))
			}
		case k == "aws:TagKeys":
			fixes = append(fixes, "tag with only the keys the statement allows ("+class+".tags)")
		case k == "ec2:MetadataHttpTokens":
			fixes = append(fixes, fmt.Sprintf(`set %s.metadataOptions.httpTokens: "required"`, class))
		case k == "ec2:MetadataHttpPutResponseHopLimit":
			fixes = append(fixes, fmt.Sprintf("lower %s.metadataOptions.httpPutResponseHopLimit to what the statement allows", class))
		case k == "ec2:Encrypted" && d.Device >= 0:
			fixes = append(fixes, fmt.Sprintf("set %s.blockDevices[%d].encrypted: true", class, d.Device))
		case k == "ec2:VolumeType" && d.Device >= 0:
			fixes = append(fixes, fmt.Sprintf("use a volume type the statement allows for %s.blockDevices[%d]", class, d.Device))
		case k == "ec2:VolumeSize" && d.Device >= 0:
			fixes = append(fixes, fmt.Sprintf("use a volume size the statement allows for %s.blockDevices[%d]", class, d.Device))
		case k == "ec2:InstanceType" && d.Pool != "":
			fixes = append(fixes, fmt.Sprintf("drop the instance families %s from nodePools.%s", strings.Join(families(d.Types), ", "), d.Pool))
		case k == "ec2:InstanceMarketType" && d.Pool != "":
			fixes = append(fixes, fmt.Sprintf("drop the capacity type the statement refuses from nodePools.%s.capacityTypes", d.Pool))
		case k == "aws:RequestedRegion":
			fixes = append(fixes, fmt.Sprintf("the region %s is outside what the statement allows: run the cluster in an allowed region, or exempt these calls there", e.Names.Region))
		}
	}
	if len(fixes) == 0 {
		return "change the profile or the guardrail so that the statement no longer matches this request"
	}
	return strings.Join(fixes, "; ")
}

// families lists the families of instance types, in order.
func families(types []string) []string {
	var out []string
	for _, t := range types {
		f, _, _ := strings.Cut(t, ".")
		if !slices.Contains(out, f) {
			out = append(out, f)
		}
	}
	return out
}

// Message says what is denied, and by what.
func (d Denial) Message() string {
	who := "the controller"
	switch {
	case d.Service != "":
		who = d.Service + " (" + d.Purpose + ")"
	case d.Pool == "" && d.Class != "":
		who = "node class " + d.Class
	case d.Device >= 0:
		who = fmt.Sprintf("node class %s (volume %d, for pool %s)", d.Class, d.Device, d.Pool)
	case d.Pool != "":
		who = "pool " + d.Pool
	}
	what := strings.Join(d.What, ", ")
	if len(d.Types) > 0 {
		shown := d.Types
		more := ""
		if len(shown) > 3 {
			shown, more = shown[:3], fmt.Sprintf(" and %d more", len(d.Types)-3)
		}
		what += fmt.Sprintf(" (instance types %s%s)", strings.Join(shown, ", "), more)
	}
	verb := "is"
	if len(d.What) > 1 {
		verb = "are"
	}
	var by string
	switch {
	case d.Result.Decision == iameval.ExplicitlyDenied:
		var refs []string
		for _, s := range d.Statements {
			refs = append(refs, s.Ref.String())
		}
		by = "explicitly denied by " + strings.Join(refs, " and ")
	case d.Result.Missing == "boundary" && d.Boundary != "" && len(d.Result.Near) > 0:
		by = "not allowed by the permissions boundary " + d.Boundary + ": " + nearText(d.Result.Near)
	case d.Result.Missing == "boundary" && d.Boundary != "":
		by = "not allowed by the permissions boundary " + d.Boundary + ", which allows nothing for it"
	case strings.HasPrefix(d.Result.Missing, "scp:") && len(d.Level) > 0:
		by = fmt.Sprintf("not allowed by the organization level %q, whose policies (%s) allow nothing for it", strings.TrimPrefix(d.Result.Missing, "scp:"), strings.Join(d.Level, ", "))
	default:
		by = "not allowed by the " + strings.Replace(d.Result.Missing, "scp:", "organization level ", 1)
	}
	return fmt.Sprintf("%s: %s %s %s", who, what, verb, by)
}

// nearText says which statements came closest to allowing a request.
func nearText(near []iameval.Near) string {
	parts := make([]string, len(near))
	for i, n := range near {
		parts[i] = n.String()
	}
	return strings.Join(parts, "; ")
}

// Row is one request with its decision, for the review of a security team.
type Row struct {
	Env      string   `json:"env"`
	From     string   `json:"from"`
	Action   string   `json:"action"`
	Resource string   `json:"resource"`
	Types    []string `json:"instanceTypes,omitempty"`
	Decision string   `json:"decision"`
	// By are the deciding statements: the denying ones, or the allowing
	// identity statements; Missing says which policy allowed nothing.
	By      []string `json:"by,omitempty"`
	Missing string   `json:"missing,omitempty"`
	// Near are, for an implicit deny, the statements of that policy that
	// take in the action and resource and fail only on their conditions,
	// with each condition they fail.
	Near []string `json:"near,omitempty"`
}

// underGuardrails are the policies a request of identity policies ids is
// decided by: those and, when the profile has guardrails, their
// boundary, SCPs and RCPs.
func underGuardrails(g *model.Guardrails, ids []*iameval.Policy) iameval.Policies {
	p := iameval.Policies{Identity: ids}
	if g != nil {
		p.Boundary, p.SCPs, p.RCPs = g.Boundary, g.SCPs, g.RCPs
	}
	return p
}

// Explain decides every request of the environment and lists them all.
func Explain(e *model.Env) ([]Row, error) {
	if e.Facts == nil {
		return nil, nil
	}
	ids, err := identity(e)
	if err != nil {
		return nil, err
	}
	policies := underGuardrails(e.Guardrails, ids)
	var out []Row
	for _, r := range Requests(e) {
		res, err := evaluate(policies, r)
		if err != nil {
			return nil, err
		}
		from := "controller"
		switch {
		case r.Service != "":
			from = r.Service
		case r.Pool == "" && r.Class != "":
			from = "nodeClass " + r.Class
		case r.Device >= 0:
			from = fmt.Sprintf("nodeClass %s volume %d", r.Class, r.Device)
		case r.Pool != "":
			from = "pool " + r.Pool
		}
		row := Row{Env: e.Name, From: from, Action: r.Action, Resource: r.Resource, Types: r.Types, Decision: string(res.Decision), Missing: res.Missing}
		for _, b := range res.By {
			row.By = append(row.By, b.String())
		}
		for _, n := range res.Near {
			row.Near = append(row.Near, n.String())
		}
		out = append(out, row)
	}
	return out, nil
}
