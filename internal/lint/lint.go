// Package lint holds the rule catalog `karpgen vet` and `karpgen render`
// apply to every loaded environment. Each rule has a stable ID, a
// severity, a fix hint and a check; findings carry the position of the
// profile field they are about.
package lint

import (
	"fmt"
	"iter"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/karpgen/karpgen/internal/diag"
	"github.com/karpgen/karpgen/internal/facts"
	"github.com/karpgen/karpgen/internal/model"
	"github.com/karpgen/karpgen/internal/profile"
)

// Rule is one check of the catalog.
type Rule struct {
	ID       string
	Severity diag.Severity
	// Group is the catalog section ("Place", "Versions", ...).
	Group string
	// Summary says what the rule refuses or warns about.
	Summary string
	// Hint is the default fix, used when a finding gives none of its own.
	Hint  string
	check func(c *Context)
}

// Source gives the position of a profile field (a CUE path below the
// environment) and says whether the profile sets it or leaves it to a
// default. The loader provides it.
type Source interface {
	Pos(path string) diag.Pos
	Has(path string) bool
}

// Context is what a rule sees of one environment.
type Context struct {
	E   *model.Env
	Src Source
	P   *profile.Profile
	// Version and Minor are E's: Minor is nil when the Karpenter version
	// is not supported, and rules that need version facts do nothing.
	Version facts.Version
	Minor   *facts.Minor
	// Today is the day vet runs (YYYY-MM-DD), "" when the check does not
	// depend on it (render and build output stays the same every day).
	Today    string
	rule     *Rule
	findings []diag.Finding
}

// Report adds a finding of the current rule about the field at path
// (relative to the environment). hint may be "" for the rule's own.
func (c *Context) Report(path, hint, format string, args ...any) {
	if hint == "" {
		hint = c.rule.Hint
	}
	c.findings = append(c.findings, diag.Finding{
		Rule:     c.rule.ID,
		Severity: c.rule.Severity,
		Env:      c.E.Name,
		Path:     "environments." + c.E.Name + pathSuffix(path),
		Message:  fmt.Sprintf(format, args...),
		Pos:      c.Src.Pos(path),
		Hint:     hint,
	})
}

// ReportAlso reports as Report does, with further positions that took
// part (a guardrail's denying statement in its document).
func (c *Context) ReportAlso(also []diag.Pos, path, hint, format string, args ...any) {
	c.Report(path, hint, format, args...)
	c.findings[len(c.findings)-1].Also = also
}

func pathSuffix(path string) string {
	if path == "" {
		return ""
	}
	return "." + path
}

// Rules returns the catalog, sorted by ID.
func Rules() []*Rule {
	out := append([]*Rule(nil), catalog...)
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// Check runs every rule on a resolved environment; src places findings.
func Check(e *model.Env, src Source) []diag.Finding { return CheckOn(e, src, "") }

// CheckOn checks as Check does, and with today (YYYY-MM-DD) the rules
// that depend on the day too (support windows).
func CheckOn(e *model.Env, src Source, today string) []diag.Finding {
	c := &Context{E: e, Src: src, P: e.Profile, Version: e.Version, Minor: e.Facts, Today: today}
	for _, r := range catalog {
		c.rule = r
		r.check(c)
	}
	return c.findings
}

// maxEnvName keeps every name derived from an environment's within its
// limit: the Argo CD Application karpenter-<env> is a DNS-1123 label.
const maxEnvName = 63 - len("karpenter-")

// CheckEnvName reports an environment name that is not a DNS-1123 label
// short enough for every name and path derived from it (such a name has
// no path separator, no dot, and cannot be a file of out/ itself): what is
// wrong, or "".
func CheckEnvName(name string) string {
	switch {
	case strings.ContainsAny(name, `/\`) || strings.Contains(name, ".."):
		return fmt.Sprintf("environment name %q holds a path separator or \"..\"; it names the folder out/<env>", name)
	case !dns1123Label().MatchString(name):
		return fmt.Sprintf("environment name %q is not a DNS-1123 label: lower-case letters, digits and '-', starting and ending with a letter or digit", name)
	case len(name) > maxEnvName:
		return fmt.Sprintf("environment name %q is %d characters; at most %d, so that its Argo CD Application karpenter-<env> fits 63", name, len(name), maxEnvName)
	}
	return ""
}

// names returns sorted map keys.
func names[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }

// pools yields the profile's node pools in name order: the walk most
// rules make.
func (c *Context) pools() iter.Seq2[string, profile.NodePool] {
	return func(yield func(string, profile.NodePool) bool) {
		for _, name := range names(c.P.NodePools) {
			if !yield(name, c.P.NodePools[name]) {
				return
			}
		}
	}
}

// quoteList renders names for a message: "a", "b" and "c".
func quoteList(s []string) string {
	q := make([]string, len(s))
	for i, x := range s {
		q[i] = fmt.Sprintf("%q", x)
	}
	switch len(q) {
	case 0:
		return "none"
	case 1:
		return q[0]
	}
	return strings.Join(q[:len(q)-1], ", ") + " and " + q[len(q)-1]
}

// closest names the known value nearest to s, if any is near.
func closest(s string, candidates []string) string { return diag.Closest(s, candidates) }
