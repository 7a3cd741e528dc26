// Package diag holds the findings karpgen reports about a profile: schema
// errors and lint rule findings alike, each with the position of the
// profile field it is about, and how they are printed.
package diag

import (
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strings"

	"github.com/karpgen/karpgen/internal/escape"
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

// Finding is one problem found in a profile.
type Finding struct {
	Rule     string   `json:"rule"`
	Severity Severity `json:"severity"`
	Env      string   `json:"env,omitempty"`
	// Path is the profile field, e.g. environments.dev.nodePools.app.zones[0].
	Path    string `json:"path,omitempty"`
	Message string `json:"message"`
	Pos     Pos    `json:"pos"`
	// Also are further positions that took part (e.g. the schema's).
	Also []Pos  `json:"also,omitempty"`
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

func sameButEnv(a, b Finding) bool {
	return a.Rule == b.Rule && a.Pos == b.Pos && a.Message == b.Message && a.Severity == b.Severity && a.Hint == b.Hint && a.Env != "" && b.Env != ""
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

// PrintText writes findings for people:
//
//	profiles/prod.cue:12:3: error: prod: message [rule]
//	    hint: ...
//
// The environment is named because environments often share a field
// (and so its position) through a common base.
//
// A finding that several environments share through a common base (same
// rule, position and message) is printed once, naming them all.
func PrintText(w io.Writer, fs []Finding) {
	for i := 0; i < len(fs); i++ {
		f := fs[i]
		envs := []string{}
		if f.Env != "" {
			envs = append(envs, f.Env)
		}
		for i+1 < len(fs) && sameButEnv(fs[i+1], f) {
			i++
			envs = append(envs, fs[i].Env)
		}
		sort.Strings(envs)
		env := ""
		if len(envs) > 0 {
			env = strings.Join(envs, ", ") + ": "
		}
		// Messages and file names may carry text of the profiles (a
		// Jsonnet error, a file name): nothing of it may act on a
		// terminal or start a CI workflow command.
		fmt.Fprintf(w, "%s: %s: %s%s [%s]\n", escape.Line(f.Pos.String()), f.Severity, escape.Terminal(env), escape.Terminal(f.Message), f.Rule)
		for _, p := range f.Also {
			fmt.Fprintf(w, "    see %s\n", escape.Terminal(p.String()))
		}
		if f.Hint != "" {
			fmt.Fprintf(w, "    hint: %s\n", escape.Terminal(f.Hint))
		}
	}
}

// PrintJSON writes findings as one JSON document.
func PrintJSON(w io.Writer, fs []Finding) error {
	if fs == nil {
		fs = []Finding{}
	}
	return WriteJSON(w, struct {
		Findings []Finding `json:"findings"`
	}{fs})
}

// WriteJSON is karpgen's one JSON printer for people and scripts:
// indented by two spaces, HTML characters as they are, a final newline.
func WriteJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// Closest returns the candidate nearest to s by edit distance, when it
// is near enough to be what was meant; "" otherwise. Hints use it.
func Closest(s string, candidates []string) string {
	best, bestD := "", len(s)/2+2
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
