package load

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"cuelang.org/go/cue"
	"cuelang.org/go/cue/errors"

	"github.com/karpgen/karpgen/internal/diag"
	"github.com/karpgen/karpgen/internal/fieldpos"
	"github.com/karpgen/karpgen/internal/util/cueshape"
	"github.com/karpgen/karpgen/schema"
)

// Schema findings in the user's terms: CUE says "conflicting values
// "podIdentity" and "IRSA"" or "incomplete value string"; karpgen says
// which values the field takes, which field is required, what a pattern
// means, and points at the user's file, never into the embedded schema.
// The schema is read for what a field allows, so the words follow it.

// patternWords say what each pattern of the schema means, with an
// example; TestEveryConstraintIsExplained holds the table to the schema.
var patternWords = map[string][2]string{
	`^[0-9]{12}$`:                {"a 12-digit AWS account ID", `"123456789012"`},
	`^[23]\.[0-9]+$`:             {"an Argo CD minor version", `"2.10"`},
	`^1\.[0-9]+$`:                {"a Kubernetes minor version", `"1.32"`},
	`^[A-Za-z0-9_-]{1,80}$`:      {"an SQS queue name: 1 to 80 letters, digits, '-' and '_'", `"Karpenter-prod"`},
	`^[A-Za-z0-9+=,.@_-]{1,64}$`: {"an IAM role name (not an ARN): 1 to 64 letters, digits and +=,.@_-", `"KarpenterNodeRole-prod"`},
	`^cr-[0-9a-z]+$`:             {"an EC2 capacity reservation ID", `"cr-0123456789abcdef0"`},
	`^a-[0-9a-z]{1,64}$`:         {"an EKS Pod Identity association ID", `"a-0abc1def2ghi3jkl4"`},
	`^\d+(\.\d+)?$`:              {"a price in dollars, digits only", `"0.42"`},
	`^([+-]\d*\.?\d+|\+\d*\.?\d+%|-\d{1,2}(\.\d+)?%|-100%)$`:             {"a signed amount, a rise by a percentage or a cut of at most 100%", `"-15%"`},
	`^arn:aws(-cn|-us-gov)?:iam::[0-9]{12}:policy/[A-Za-z0-9+=,.@_/-]+$`: {"the ARN of a customer managed IAM policy", `"arn:aws:iam::111122223333:policy/PlatformBoundary"`},
	`^o-[a-z0-9]{10,32}$`:                        {"an AWS Organizations ID", `"o-a1b2c3d4e5"`},
	`^[A-Za-z0-9 ._-]{1,64}$`:                    {"a name of 1 to 64 letters, digits, spaces and ._-", `"workloads"`},
	`^[A-Za-z0-9_.-]+(/[A-Za-z0-9_.-]+)*\.json$`: {"a .json file inside the profiles folder, as a relative path", `"guardrails/deny-regions.json"`},
	`^([0-9]+(s|m|h))+$`:                         {"a duration (digits with s, m or h)", `"1h30m"`},
	`^((([0-9]+(h|m))|([0-9]+h[0-9]+m))(0s)?)$`:  {"a duration of hours and minutes", `"8h"`},
}

// requiredExamples show a value for each field the schema requires
// without a default, by its path with "*" for map keys and list indices:
// the schema's @example of the field or of the field around it.
// TestEveryConstraintIsExplained holds that each has one.
var requiredExamples = sync.OnceValue(func() map[string]string {
	fields, err := Reference()
	if err != nil {
		return nil
	}
	out := map[string]string{}
	for _, f := range fields {
		if f.Required && f.Example != "" {
			out[strings.ReplaceAll(f.Path, "[]", ".*")] = f.Example
		}
	}
	return out
})

// explainer reads the schema's #Profile for what a field allows.
type explainer struct {
	profile cue.Value
}

func newExplainer(s cue.Value) *explainer {
	return &explainer{profile: s.LookupPath(cue.ParsePath("#Profile"))}
}

// at is the schema's value of a field below #Profile: map keys go
// through the map's pattern, list indices through its element.
func (x *explainer) at(sels []cue.Selector) (cue.Value, string, bool) {
	v := x.profile
	var shape []string
	for _, s := range sels {
		if s.Type() == cue.IndexLabel {
			e := cueshape.ListElem(v)
			if !e.Exists() {
				return cue.Value{}, "", false
			}
			v = e
			shape = append(shape, "*")
			continue
		}
		if !s.IsString() {
			return cue.Value{}, "", false
		}
		if f := v.LookupPath(cue.MakePath(s)); f.Exists() {
			v = f
			shape = append(shape, s.Unquoted())
			continue
		}
		if f := cueshape.Pattern(v); f.Exists() {
			v = f
			shape = append(shape, "*")
			continue
		}
		if f := v.LookupPath(cue.MakePath(s.Optional())); f.Exists() {
			v = f
			shape = append(shape, s.Unquoted())
			continue
		}
		return cue.Value{}, "", false
	}
	return v, strings.Join(shape, "."), true
}

// enum lists the values a field takes when the schema gives a choice of
// literals ("podIdentity" | "irsa"); nil otherwise.
func enum(v cue.Value) []string {
	op, args := v.Expr()
	if op != cue.OrOp {
		return nil
	}
	var out []string
	for _, a := range args {
		if !a.IsConcrete() || a.Kind() == cue.StructKind || a.Kind() == cue.ListKind {
			return nil
		}
		out = append(out, fmt.Sprint(a))
	}
	return out
}

// pattern is the regular expression a string field must match, if any,
// and the words a choice beside it allows (*"1m" | "Never" | #Duration:
// the duration pattern, and "Never"; a default the pattern matches is no
// word of its own).
func pattern(v cue.Value) (string, []string) {
	op, args := cue.Dereference(v).Expr()
	switch {
	case op == cue.RegexMatchOp && len(args) == 1:
		s, _ := args[0].String()
		return s, nil
	case op == cue.AndOp:
		for _, a := range args {
			if p, words := pattern(a); p != "" {
				return p, words
			}
		}
	case op == cue.OrOp:
		var re string
		var words []string
		for _, a := range args {
			if w, err := a.String(); err == nil && a.IsConcrete() {
				words = append(words, w)
				continue
			}
			p, _ := pattern(a)
			if p == "" || re != "" {
				return "", nil
			}
			re = p
		}
		if re == "" {
			return "", nil
		}
		words = slices.DeleteFunc(words, func(w string) bool {
			m, err := regexp.MatchString(re, w)
			return err == nil && m
		})
		return re, words
	}
	return "", nil
}

// kindWords names a CUE kind for people.
func kindWords(k cue.Kind) string {
	var parts []string
	for _, c := range []struct {
		k cue.Kind
		w string
	}{{cue.StringKind, "a string"}, {cue.IntKind, "a whole number"}, {cue.FloatKind, "a number"}, {cue.BoolKind, "true or false"}, {cue.ListKind, "a list"}, {cue.StructKind, "a struct"}} {
		if k&c.k != 0 && !(c.k == cue.FloatKind && k&cue.IntKind != 0) {
			parts = append(parts, c.w)
		}
	}
	return strings.Join(parts, " or ")
}

// explain turns the findings of one environment's schema errors into the
// user's terms where it can: each field whose error it understands gets
// one finding (a value outside a choice, a pattern not matched, a value
// of the wrong type, a required field missing), which replaces CUE's
// findings for that field and the fields below it. Positions are the
// user's; the schema's are dropped.
func (e *Env) explain(x *explainer, fs []diag.Finding) []diag.Finding {
	prefix := "environments." + e.Name
	type field struct {
		path string
		sels []cue.Selector
		at   diag.Pos
	}
	var fields []field
	seen := map[string]bool{}
	for _, f := range fs {
		rest, ok := strings.CutPrefix(f.Path, prefix)
		if !ok || seen[rest] {
			continue
		}
		seen[rest] = true
		rest = strings.TrimPrefix(rest, ".")
		sels, ok := errorPath(rest)
		if rest == "" || !ok {
			continue
		}
		fields = append(fields, field{rest, sels, f.Pos})
	}
	slices.SortStableFunc(fields, func(a, b field) int { return len(a.sels) - len(b.sels) })
	var out []diag.Finding
	var covered []string
	required := false
	under := func(p string) bool {
		for _, c := range covered {
			if p == c || strings.HasPrefix(p, c+".") || strings.HasPrefix(p, c+"[") {
				return true
			}
		}
		return false
	}
	for _, f := range fields {
		if under(f.path) {
			continue
		}
		if got := e.explainField(x, f.sels, f.at); len(got) > 0 {
			out = append(out, got...)
			covered = append(covered, f.path)
			for _, g := range got {
				required = required || strings.HasSuffix(g.Message, " is required")
			}
		}
	}
	// CUE leaves a missing field unsaid while another error stands:
	// every required field the profile lacks is named in the same run.
	for _, path := range e.missing() {
		if under(path) {
			continue
		}
		sels, _ := errorPath(path)
		out = append(out, e.explainField(x, sels, diag.Pos{})...)
		covered = append(covered, path)
		required = true
	}
	refused := e.branchErrors(x, fs)
	for _, f := range fs {
		rest := strings.TrimPrefix(strings.TrimPrefix(f.Path, prefix), ".")
		if strings.HasPrefix(f.Path, prefix) && rest != "" && under(rest) {
			continue
		}
		if refused.noise(rest) {
			continue
		}
		// A field derived from a required one that is missing (the
		// discovery tag from cluster.name) is incomplete for that reason
		// alone: the required field's finding says it.
		if required && strings.Contains(f.Message, "incomplete value") {
			continue
		}
		f.Also = slices.DeleteFunc(f.Also, func(p diag.Pos) bool { return p.File == schema.Filename })
		if f.Pos.File == schema.Filename {
			f.Pos = e.Pos(rest)
		}
		if f.Hint == "" {
			f.Hint = "every field, its type and its comment are in karpgen's schema/profile.cue"
		}
		f.Message = strings.TrimPrefix(f.Message, prefix+".")
		out = append(out, f)
	}
	return out
}

// choices are, for each field whose choice failed whole (budgets:
// *[{nodes: "10%"}] | [...#Budget]), the paths below it that the
// choice's open branch refuses: what the user wrote wrong. CUE's errors
// of such a field mix both branches; the default's (its one budget, its
// "10%") are noise.
type choices map[string]map[string]bool

// noise reports whether a finding at path is CUE's summary of a failed
// choice or an error only its default branch gives.
func (c choices) noise(path string) bool {
	for at, refused := range c {
		switch rel, ok := strings.CutPrefix(path, at); {
		case !ok || len(refused) == 0:
		case rel == "":
			return true
		case rel[0] == '.':
			return !refused[rel[1:]]
		}
	}
	return false
}

// branchErrors validates the user's value of each failed choice against
// the choice's open branch.
func (e *Env) branchErrors(x *explainer, fs []diag.Finding) choices {
	out := choices{}
	for _, f := range fs {
		if !strings.Contains(f.Message, "in empty disjunction") {
			continue
		}
		rest := strings.TrimPrefix(strings.TrimPrefix(f.Path, "environments."+e.Name), ".")
		sels, ok := errorPath(rest)
		if !ok {
			continue
		}
		s, _, ok := x.at(sels)
		user := e.Value().LookupPath(cue.MakePath(sels...))
		if !ok || !user.Exists() {
			continue
		}
		open := cueshape.OpenBranch(s)
		if !open.Exists() {
			continue
		}
		// The errors' paths are the schema's (#NodePool.disruption.
		// budgets.0.duration): what follows the field's own label is the
		// path below it.
		label := sels[len(sels)-1].Unquoted()
		refused := map[string]bool{}
		for _, err := range errors.Errors(open.Unify(user).Validate(cue.Concrete(true))) {
			p := err.Path()
			if i := slices.Index(p, label); i >= 0 && i+1 < len(p) {
				refused[strings.Join(p[i+1:], ".")] = true
			}
		}
		out[rest] = refused
	}
	return out
}

// missing lists the required fields (requiredExamples) the profile does
// not set, as paths in the form CUE's errors use. A field is missing only
// where its parent is there: a profile without argocd needs no repoURL.
func (e *Env) missing() []string {
	var out []string
	var walk func(v cue.Value, parts, at []string)
	walk = func(v cue.Value, parts, at []string) {
		if len(parts) == 0 {
			return
		}
		if part := parts[0]; part != "*" {
			f := v.LookupPath(cue.MakePath(cue.Str(part)))
			switch {
			case f.Exists():
				walk(f, parts[1:], append(at, part))
			case len(parts) == 1:
				out = append(out, strings.Join(append(at, part), "."))
			}
			return
		}
		if v.Kind() == cue.ListKind {
			iter, _ := v.List()
			for i := 0; iter.Next(); i++ {
				walk(iter.Value(), parts[1:], append(slices.Clone(at), strconv.Itoa(i)))
			}
			return
		}
		iter, err := v.Fields()
		if err != nil {
			return
		}
		for iter.Next() {
			walk(iter.Value(), parts[1:], append(slices.Clone(at), quoteLabel(iter.Selector().Unquoted())))
		}
	}
	for _, shape := range slices.Sorted(maps.Keys(requiredExamples())) {
		walk(e.Value(), strings.Split(shape, "."), nil)
	}
	return out
}

// quoteLabel writes a map key as CUE's error paths do.
func quoteLabel(s string) string {
	if _, err := strconv.Atoi(s); err != nil && !strings.ContainsAny(s, `."/ `) && s != "" {
		return s
	}
	return strconv.Quote(s)
}

// errorPath reads the path of a CUE error ("nodePools.app.taints.0.effect",
// "tags.\"karpenter.sh/discovery\"") as selectors: numbers are list
// indices, quoted labels are unquoted.
func errorPath(p string) ([]cue.Selector, bool) {
	var sels []cue.Selector
	for p != "" {
		var seg string
		if strings.HasPrefix(p, `"`) {
			end := 1
			for end < len(p) && (p[end] != '"' || p[end-1] == '\\') {
				end++
			}
			if end >= len(p) {
				return nil, false
			}
			q, err := strconv.Unquote(p[:end+1])
			if err != nil {
				return nil, false
			}
			sels = append(sels, cue.Str(q))
			p = strings.TrimPrefix(p[end+1:], ".")
			continue
		}
		seg, p, _ = strings.Cut(p, ".")
		if n, err := strconv.Atoi(seg); err == nil {
			sels = append(sels, cue.Index(n))
		} else {
			sels = append(sels, cue.Str(seg))
		}
	}
	return sels, len(sels) > 0
}

// explainField explains the error of one field, or returns nothing.
func (e *Env) explainField(x *explainer, sels []cue.Selector, at diag.Pos) []diag.Finding {
	s, shape, ok := x.at(sels)
	if !ok {
		return nil
	}
	path := cue.MakePath(sels...).String()
	user := e.Value().LookupPath(cue.MakePath(sels...))
	finding := func(path string, pos diag.Pos, hint, format string, args ...any) diag.Finding {
		if !pos.IsValid() || pos.File == schema.Filename || e.IsJsonnet() {
			pos = e.Pos(path)
		}
		return diag.Finding{Rule: "schema", Severity: diag.Error, Env: e.Name, Path: "environments." + e.Name + "." + path,
			Pos: pos, Message: fmt.Sprintf(format, args...), Hint: hint}
	}
	if !user.Exists() {
		ex, ok := requiredExamples()[shape]
		if !ok {
			return nil
		}
		return []diag.Finding{finding(path, e.Pos(path), "e.g. "+ex, "%s is required", path)}
	}
	// A list whose elements are a choice: each element outside it.
	if user.Kind() == cue.ListKind {
		choices := enum(cueshape.ListElem(s))
		if choices == nil {
			return nil
		}
		var out []diag.Finding
		iter, _ := user.List()
		for i := 0; iter.Next(); i++ {
			v := iter.Value()
			if got, ok := literal(v); ok && !slices.Contains(choices, got) {
				p := fmt.Sprintf("%s[%d]", path, i)
				out = append(out, finding(p, fieldpos.Of(v), oneOfHint(got, choices), "%s: %s is not one of %s", p, got, strings.Join(choices, ", ")))
			}
		}
		return out
	}
	got, ok := literal(user)
	if !ok {
		return nil
	}
	// CUE's own position is the value's when it names the same line as
	// the literal (it has the column of the value, not of the label).
	pos := literalPos(user, got)
	if at.IsValid() && at.File != schema.Filename && (!pos.IsValid() || (at.File == pos.File && at.Line == pos.Line)) {
		pos = at
	}
	if choices := enum(s); choices != nil {
		if slices.Contains(choices, got) {
			return nil
		}
		return []diag.Finding{finding(path, pos, oneOfHint(got, choices), "%s: %s is not one of %s", path, got, strings.Join(choices, ", "))}
	}
	if want := s.IncompleteKind(); user.Kind()&want == 0 {
		return []diag.Finding{finding(path, pos, "write "+kindWords(want)+kindExample(want), "%s: %s is %s, but the field takes %s", path, got, kindWords(user.Kind()), kindWords(want))}
	}
	if re, also := pattern(s); re != "" && user.Kind() == cue.StringKind {
		str, _ := user.String()
		if matched, err := regexp.MatchString(re, str); err == nil && !matched && !slices.Contains(also, str) {
			words, ok := patternWords[re]
			if !ok {
				words = [2]string{"text matching " + re, ""}
			}
			hint := "write " + words[0]
			if words[1] != "" {
				hint += ", e.g. " + words[1]
			}
			what := words[0]
			for _, w := range also {
				hint += ", or " + strconv.Quote(w)
				what += " or " + strconv.Quote(w)
			}
			return []diag.Finding{finding(path, pos, hint, "%s: %s is not %s", path, got, what)}
		}
	}
	return nil
}

// literalPos is where the profile writes the value got, among the
// conjuncts of a unified value (a base's default and an environment's
// value, say): the environment's literal, not the base's default.
func literalPos(v cue.Value, got string) diag.Pos {
	op, args := v.Expr()
	if op == cue.AndOp {
		for _, a := range args {
			if p := literalPos(a, got); p.IsValid() {
				return p
			}
		}
		return diag.Pos{}
	}
	if l, ok := literal(v); ok && l == got && op == cue.NoOp {
		return fieldpos.Of(v)
	}
	return diag.Pos{}
}

// literal is a concrete scalar as CUE writes it ("spot", 3, true).
func literal(v cue.Value) (string, bool) {
	if !v.IsConcrete() || v.Kind() == cue.StructKind || v.Kind() == cue.ListKind {
		return "", false
	}
	if s, err := v.String(); err == nil {
		return strconv.Quote(s), true
	}
	return fmt.Sprint(v), true
}

func oneOfHint(got string, choices []string) string {
	lowered := lower(choices)
	if s := diag.Closest(strings.ToLower(got), lowered); s != "" {
		return "did you mean " + choices[slices.Index(lowered, s)] + "?"
	}
	return "use one of " + strings.Join(choices, ", ")
}

func lower(s []string) []string {
	out := make([]string, len(s))
	for i, x := range s {
		out[i] = strings.ToLower(x)
	}
	return out
}

func kindExample(k cue.Kind) string {
	switch {
	case k&cue.IntKind != 0:
		return " without quotes, e.g. 2"
	case k&cue.BoolKind != 0:
		return " without quotes"
	case k&cue.StringKind != 0:
		return " in quotes"
	}
	return ""
}
