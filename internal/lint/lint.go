// Package lint holds the rule catalog `karpgen vet` and `karpgen render`
// apply to every loaded environment. Each rule has a stable ID, a
// severity, a fix hint and a check; findings carry the position of the
// profile field they are about.
package lint

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/karpgen/karpgen/generators/facts"
	"github.com/karpgen/karpgen/internal/diag"
	"github.com/karpgen/karpgen/internal/load"
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

// Context is what a rule sees of one environment.
type Context struct {
	Env *load.Env
	P   *profile.Profile
	// Version and Minor are set when the Karpenter version is supported;
	// rules that need version facts do nothing otherwise.
	Version  facts.Version
	Minor    *facts.Minor
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
		Env:      c.Env.Name,
		Path:     "environments." + c.Env.Name + pathSuffix(path),
		Message:  fmt.Sprintf(format, args...),
		Pos:      c.Env.Pos(path),
		Hint:     hint,
	})
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

// Check runs every rule on an environment.
func Check(env *load.Env) []diag.Finding {
	c := &Context{Env: env, P: env.Profile}
	if v, err := facts.ParseVersion(env.Profile.Karpenter.Version); err == nil {
		if m, ok := facts.Lookup(v); ok {
			c.Version, c.Minor = v, m
		}
	}
	for _, r := range catalog {
		c.rule = r
		r.check(c)
	}
	return c.findings
}

// checkEnvName reports an environment name that is not safe as a folder.
func checkEnvName(name string) string {
	switch {
	case name == "" || name == "." || name == "..":
		return fmt.Sprintf("environment name %q cannot be a folder name", name)
	case strings.ContainsAny(name, `/\`) || strings.Contains(name, ".."):
		return fmt.Sprintf("environment name %q holds a path separator or \"..\"; it names the folder out/<env>", name)
	case !envNameRE.MatchString(name):
		return fmt.Sprintf("environment name %q must be lower-case letters, digits, '-', '_' or '.', starting with a letter or digit", name)
	}
	return ""
}

// names returns sorted map keys.
func names[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }

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
