package iameval

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/karpgen/karpgen/internal/util/lazyre"
)

// Request is one API call as AWS authorizes it.
type Request struct {
	Action, Resource string
	// Context are the request's condition keys; a key with several
	// values is multi-valued (aws:TagKeys). The keys AWS puts in every
	// request are added where it lacks them (WithAlwaysPresent).
	Context map[string][]string
	// At is when the request is made (aws:CurrentTime, aws:EpochTime);
	// the zero time is the moment it is evaluated.
	At time.Time
}

// WithAlwaysPresent is the request with the keys AWS's request context
// holds in every signed request, where the request does not set them:
// aws:CurrentTime and aws:EpochTime (At), aws:SecureTransport (true: the
// calls karpgen models are made over TLS), aws:ViaAWSService and
// aws:PrincipalIsAWSService (false: a principal's own call, unless the
// request says a service makes it). A deny conditioned on one of them
// applies as AWS applies it, never skipped for a key the model left out.
func (r Request) WithAlwaysPresent() Request {
	at := r.At
	if at.IsZero() {
		at = time.Now()
	}
	ctx := make(map[string][]string, len(r.Context)+5)
	for k, v := range r.Context {
		ctx[k] = v
	}
	for _, kv := range [][2]string{
		{"aws:CurrentTime", at.UTC().Format(time.RFC3339)},
		{"aws:EpochTime", strconv.FormatInt(at.Unix(), 10)},
		{"aws:SecureTransport", "true"},
		{"aws:ViaAWSService", "false"},
		{"aws:PrincipalIsAWSService", "false"},
	} {
		if _, ok := r.lookup(kv[0]); !ok {
			ctx[kv[0]] = []string{kv[1]}
		}
	}
	r.Context, r.At = ctx, at
	return r
}

// lookup finds a condition key; keys are case-insensitive.
func (r Request) lookup(key string) ([]string, bool) {
	if v, ok := r.Context[key]; ok {
		return v, true
	}
	for k, v := range r.Context {
		if strings.EqualFold(k, key) {
			return v, true
		}
	}
	return nil, false
}

var variable = lazyre.New(`\$\{([^}]*)\}`)

// substitute replaces the policy variables of s with the request's
// values; ok is false when one names a key the request lacks (and has no
// default) or a multi-valued key. The result is a pattern in glob's
// escaped form: ${*} and ${?} are IAM's literal asterisk and question
// mark (written \* and \?), ${$} a dollar sign, and a backslash of the
// policy's text or of a value is itself.
func (r Request) substitute(s string) (string, bool) {
	ok := true
	var out strings.Builder
	last := 0
	for _, m := range variable().FindAllStringIndex(s, -1) {
		out.WriteString(escapeBackslash(s[last:m[0]]))
		v, filled := r.variable(s[m[0]:m[1]])
		out.WriteString(v)
		ok = ok && filled
		last = m[1]
	}
	out.WriteString(escapeBackslash(s[last:]))
	return out.String(), ok
}

// escapeBackslash writes text for glob's escaped form: its wildcards
// stay wildcards, a backslash is literal.
func escapeBackslash(s string) string { return strings.ReplaceAll(s, `\`, `\\`) }

// escapeLiteral writes a value for glob's escaped form: every character
// literal.
func escapeLiteral(s string) string {
	return strings.NewReplacer(`\`, `\\`, "*", `\*`, "?", `\?`).Replace(s)
}

// unescape is the text a pattern in glob's escaped form stands for, for
// operators that compare without wildcards (StringEquals).
func unescape(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			i++
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// variable is the escaped text of one ${...}, and false when the
// request cannot fill it.
func (r Request) variable(m string) (string, bool) {
	name := strings.TrimSpace(m[2 : len(m)-1])
	switch name {
	case "*", "?":
		return `\` + name, true
	case "$":
		return name, true
	}
	def, hasDefault := "", false
	if k, d, found := strings.Cut(name, ","); found {
		name, def = strings.TrimSpace(k), strings.Trim(strings.TrimSpace(d), "'")
		hasDefault = true
	}
	v, present := r.lookup(name)
	switch {
	case present && len(v) == 1:
		return escapeLiteral(v[0]), true
	case !present && hasDefault:
		return escapeLiteral(def), true
	}
	return "", false
}

// Level is one level of an organization (root, an OU, the account) and
// the policies attached to it.
type Level struct {
	Name     string
	Policies []*Policy
}

// Policies are every policy that takes part in a request.
type Policies struct {
	Identity []*Policy
	// Boundary is the permissions boundary; nil when there is none.
	Boundary *Policy
	// SCPs and RCPs are the organization's levels, root first; every
	// SCP level must allow.
	SCPs, RCPs []Level
}

// Decision is AWS's answer.
type Decision string

const (
	Allowed          Decision = "Allowed"
	ExplicitlyDenied Decision = "ExplicitlyDenied"
	ImplicitlyDenied Decision = "ImplicitlyDenied"
)

// Ref names a statement of a policy.
type Ref struct {
	Policy string
	Sid    string
	Index  int
}

func (r Ref) String() string {
	if r.Sid != "" {
		return fmt.Sprintf("%s statement %q", r.Policy, r.Sid)
	}
	return fmt.Sprintf("%s statement %d", r.Policy, r.Index)
}

// Result is the decision and the statements that made it: the denying
// ones, or for an implicit deny the kind of policy that allowed nothing
// (Missing), or the allowing identity statements.
type Result struct {
	Decision Decision
	By       []Ref
	// Missing says which policy lacks an allow for an implicit deny:
	// "identity", "boundary" or "scp:<level>".
	Missing string
	// Near are, for an implicit deny, the Allow statements of that policy
	// that take in the request's action and resource and fail only on
	// their conditions: what to change to let it through.
	Near []Near
}

// Near is an Allow statement that would allow a request but for the
// conditions it fails.
type Near struct {
	Ref    Ref
	Failed []Failed
}

// Failed is a condition a request fails, with what the request holds
// under its key (Present false: nothing).
type Failed struct {
	Condition
	Have    []string
	Present bool
}

func (n Near) String() string {
	var parts []string
	for _, f := range n.Failed {
		have := "the request has none"
		if f.Present {
			have = "the request has " + quoteAll(f.Have)
		}
		parts = append(parts, fmt.Sprintf("%s %s %s (%s)", f.Operator, f.Key, quoteAll(f.Values), have))
	}
	return n.Ref.String() + " fails on " + strings.Join(parts, " and ")
}

func quoteAll(vs []string) string {
	q := make([]string, len(vs))
	for i, v := range vs {
		q[i] = strconv.Quote(v)
	}
	return strings.Join(q, ", ")
}

// near lists the Allow statements of the policies that target the
// request and fail on conditions only.
func near(pols []*Policy, r Request) ([]Near, error) {
	var out []Near
	for _, p := range pols {
		for _, st := range p.Statements {
			if st.Effect != "Allow" || !st.targets(r) {
				continue
			}
			var failed []Failed
			for _, c := range st.Conditions {
				ok, err := r.holds(c)
				if err != nil {
					return nil, fmt.Errorf("%s: %w", Ref{p.Name, st.Sid, st.Index}, err)
				}
				if !ok {
					have, present := r.lookup(c.Key)
					failed = append(failed, Failed{c, have, present})
				}
			}
			if len(failed) > 0 {
				out = append(out, Near{Ref{p.Name, st.Sid, st.Index}, failed})
			}
		}
	}
	return out, nil
}

// rcpServices are the services resource control policies apply to.
var rcpServices = []string{"s3", "sts", "sqs", "kms", "secretsmanager", "ecr", "aoss", "cognito-identity", "logs", "dynamodb"}

// Evaluate decides a request. An error means a statement could not be
// evaluated; it is never an allow or a deny.
func Evaluate(p Policies, r Request) (Result, error) {
	r = r.WithAlwaysPresent()
	var all []*Policy
	all = append(all, p.Identity...)
	if p.Boundary != nil {
		all = append(all, p.Boundary)
	}
	for _, l := range p.SCPs {
		all = append(all, l.Policies...)
	}
	service, _, _ := strings.Cut(r.Action, ":")
	if slices.Contains(rcpServices, strings.ToLower(service)) {
		for _, l := range p.RCPs {
			all = append(all, l.Policies...)
		}
	}
	// 1. An explicit deny anywhere.
	var denies []Ref
	for _, pol := range all {
		refs, err := matching(pol, "Deny", r)
		if err != nil {
			return Result{}, err
		}
		denies = append(denies, refs...)
	}
	if len(denies) > 0 {
		return Result{Decision: ExplicitlyDenied, By: denies}, nil
	}
	// 2. Every SCP level allows.
	for _, l := range p.SCPs {
		var allows []Ref
		for _, pol := range l.Policies {
			refs, err := matching(pol, "Allow", r)
			if err != nil {
				return Result{}, err
			}
			allows = append(allows, refs...)
		}
		if len(allows) == 0 {
			n, err := near(l.Policies, r)
			return Result{Decision: ImplicitlyDenied, Missing: "scp:" + l.Name, Near: n}, err
		}
	}
	// 3. The boundary allows.
	if p.Boundary != nil {
		refs, err := matching(p.Boundary, "Allow", r)
		if err != nil {
			return Result{}, err
		}
		if len(refs) == 0 {
			n, err := near([]*Policy{p.Boundary}, r)
			return Result{Decision: ImplicitlyDenied, Missing: "boundary", Near: n}, err
		}
	}
	// 4. An identity policy allows.
	var allows []Ref
	for _, pol := range p.Identity {
		refs, err := matching(pol, "Allow", r)
		if err != nil {
			return Result{}, err
		}
		allows = append(allows, refs...)
	}
	if len(allows) == 0 {
		n, err := near(p.Identity, r)
		return Result{Decision: ImplicitlyDenied, Missing: "identity", Near: n}, err
	}
	return Result{Decision: Allowed, By: allows}, nil
}

// matching lists the statements of one effect that apply to the request.
func matching(p *Policy, effect string, r Request) ([]Ref, error) {
	var out []Ref
	for _, st := range p.Statements {
		if st.Effect != effect {
			continue
		}
		ok, err := st.applies(r)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", Ref{p.Name, st.Sid, st.Index}, err)
		}
		if ok {
			out = append(out, Ref{p.Name, st.Sid, st.Index})
		}
	}
	return out, nil
}

// Absence is a statement that would apply to a request but for condition
// keys the request does not carry.
type Absence struct {
	Ref  Ref
	Keys []string
}

// Absent lists the statements of one effect that fail on a request only
// because it lacks keys their conditions test: a deny among them is one
// a request carrying those keys could meet.
func Absent(p *Policy, effect string, r Request) ([]Absence, error) {
	r = r.WithAlwaysPresent()
	var out []Absence
	for _, st := range p.Statements {
		if st.Effect != effect || !st.targets(r) {
			continue
		}
		var keys []string
		genuine := false
		for _, c := range st.Conditions {
			ok, err := r.holds(c)
			if err != nil {
				return nil, err
			}
			if ok {
				continue
			}
			op, _ := parseOperator(c.Operator)
			if _, present := r.lookup(c.Key); !present && !op.ifExists && op.base != "Null" && op.set != "ForAllValues" && !bases[op.base] {
				keys = append(keys, c.Key)
				continue
			}
			genuine = true
		}
		if !genuine && len(keys) > 0 {
			out = append(out, Absence{Ref{p.Name, st.Sid, st.Index}, keys})
		}
	}
	return out, nil
}

func (st Statement) applies(r Request) (bool, error) {
	if !st.targets(r) {
		return false, nil
	}
	for _, c := range st.Conditions {
		ok, err := r.holds(c)
		if err != nil || !ok {
			return false, err
		}
	}
	return true, nil
}

// targets reports whether the statement's actions and resources take in
// the request, its conditions aside.
func (st Statement) targets(r Request) bool {
	actionIn := func(patterns []string) bool {
		return slices.ContainsFunc(patterns, func(p string) bool { return glob(p, r.Action, true, false) })
	}
	if st.Actions != nil && !actionIn(st.Actions) || st.NotActions != nil && actionIn(st.NotActions) {
		return false
	}
	resourceIn := func(patterns []string) (in, resolved bool) {
		resolved = true
		for _, p := range patterns {
			s, ok := p, true
			if !st.Literal {
				s, ok = r.substitute(p)
			}
			switch {
			case ok:
				in = in || glob(s, r.Resource, false, !st.Literal)
			case sameHead(p, r.Resource):
				// A variable the request cannot fill, in a pattern of
				// the resource's own service, region and account.
				resolved = false
			}
		}
		return in, resolved
	}
	if st.Resources != nil {
		if in, _ := resourceIn(st.Resources); !in {
			return false
		}
	}
	if st.NotResources != nil {
		// A NotResource whose variable the request cannot fill says
		// nothing about the resource: the statement does not apply.
		if in, resolved := resourceIn(st.NotResources); in || !resolved {
			return false
		}
	}
	return true
}

// sameHead reports whether an ARN pattern's partition, service, region
// and account match the resource's (the part before its resource name).
func sameHead(pattern, resource string) bool {
	pp := strings.SplitN(pattern, ":", 6)
	rp := strings.SplitN(resource, ":", 6)
	if len(pp) != 6 || len(rp) != 6 {
		return false
	}
	for i := range 5 {
		if !glob(pp[i], rp[i], false, false) {
			return false
		}
	}
	return true
}
