// Package diag holds the one shape of everything karpgen finds: schema
// errors and lint rule findings about a profile, each with the position
// of the field it is about; doctor findings about a cluster, with what
// was expected and what was found; the blockers of an upgrade. Printing
// them is internal/printer's.
package diag

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"
)

// Severity of a finding: errors stop a render, warnings never do.
type Severity string

const (
	Error   Severity = "error"
	Warning Severity = "warning"
	// Note is for what a command did on the user's behalf (import's
	// changes on the way to v1): worth reading, never a problem.
	Note Severity = "note"
)

// Pos is a position in a profile file.
type Pos struct {
	File string `json:"file"`
	Line int    `json:"line"`
	Col  int    `json:"column"`
}

// IsValid reports whether the position names a file.
func (p Pos) IsValid() bool { return p.File != "" }

// Rel returns the position with its file relative to dir when it lies
// inside it.
func (p Pos) Rel(dir string) Pos {
	if dir != "" && filepath.IsAbs(p.File) {
		if r, err := filepath.Rel(dir, p.File); err == nil && !strings.HasPrefix(r, "..") {
			p.File = filepath.ToSlash(r)
		}
	}
	return p
}

func (p Pos) String() string {
	if !p.IsValid() {
		return "-"
	}
	return fmt.Sprintf("%s:%d:%d", p.File, p.Line, p.Col)
}

// Finding is one problem found: in a profile (vet, import, render), in a
// cluster's captured state (doctor) or in a planned move (upgrade).
type Finding struct {
	// Rule is the rule, check or blocker ID, e.g. nodepool/zone,
	// doctor/kubernetes-version, upgrade/kubernetes-too-new.
	Rule     string   `json:"rule"`
	Severity Severity `json:"severity"`
	Env      string   `json:"env,omitempty"`
	// Resource is what in a cluster the finding is about, e.g.
	// "cluster prod" (doctor).
	Resource string `json:"resource,omitempty"`
	// Path is the profile field, e.g. environments.dev.nodePools.app.zones[0].
	Path    string `json:"path,omitempty"`
	Message string `json:"message,omitempty"`
	// Expected and Found are what should be and what is (doctor).
	Expected string `json:"expected,omitempty"`
	Found    string `json:"found,omitempty"`
	// Pos is where in a profile, when the finding has a place there.
	Pos Pos `json:"pos,omitzero"`
	// Also are further positions that took part (e.g. the schema's).
	Also []Pos `json:"also,omitempty"`
	// Hint is what to do about it: a suggestion or a command.
	Hint string `json:"hint,omitempty"`
}

// HasErrors reports whether any finding is an error.
func HasErrors(fs []Finding) bool {
	for _, f := range fs {
		if f.Severity == Error {
			return true
		}
	}
	return false
}

// Sort orders findings by position, then rule and message, and drops
// exact duplicates.
func Sort(fs []Finding) []Finding {
	sort.SliceStable(fs, func(i, j int) bool {
		a, b := fs[i], fs[j]
		if a.Pos.File != b.Pos.File {
			return a.Pos.File < b.Pos.File
		}
		if a.Pos.Line != b.Pos.Line {
			return a.Pos.Line < b.Pos.Line
		}
		if a.Pos.Col != b.Pos.Col {
			return a.Pos.Col < b.Pos.Col
		}
		if a.Rule != b.Rule {
			return a.Rule < b.Rule
		}
		return a.Message < b.Message
	})
	out := fs[:0]
	for i, f := range fs {
		if i > 0 && sameFinding(f, fs[i-1]) {
			continue
		}
		out = append(out, f)
	}
	return out
}

// SameButEnv reports whether two findings of two environments are one
// finding of a base they share (same rule, position and words), so that
// it is printed once naming both.
func SameButEnv(a, b Finding) bool {
	return a.Env != "" && b.Env != "" && a.Rule == b.Rule && a.Pos == b.Pos && a.Severity == b.Severity &&
		a.Resource == b.Resource && a.Message == b.Message && a.Expected == b.Expected && a.Found == b.Found &&
		a.Hint == b.Hint
}

func sameFinding(a, b Finding) bool {
	return a.Rule == b.Rule && a.Pos == b.Pos && a.Message == b.Message && a.Env == b.Env
}

// Relative makes every position relative to dir.
func Relative(fs []Finding, dir string) {
	for i := range fs {
		fs[i].Pos = fs[i].Pos.Rel(dir)
		for j := range fs[i].Also {
			fs[i].Also[j] = fs[i].Also[j].Rel(dir)
		}
	}
}

// Closest returns the candidate nearest to s by edit distance, when it
// is near enough to be what was meant; "" otherwise. Hints use it.
func Closest(s string, candidates []string) string {
	best, bestD := "", len(s)/3+2
	for _, c := range candidates {
		if d := editDistance(s, c); d < bestD {
			best, bestD = c, d
		}
	}
	return best
}

func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// OptionError is an option of a request a planner refuses (upgrade's
// target, migrate's node groups): Option is the field of the planner's
// Options it is about, which the command line names by its flag.
type OptionError struct{ Option, Value, Reason string }

func (e *OptionError) Error() string {
	if e.Value == "" {
		return e.Option + ": " + e.Reason
	}
	return e.Option + " " + e.Value + ": " + e.Reason
}
