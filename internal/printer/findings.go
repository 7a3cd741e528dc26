package printer

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/karpgen/karpgen/internal/diag"
	"github.com/karpgen/karpgen/internal/util/escape"
)

// Findings writes findings for people, one head line each and the
// details indented under it:
//
//	profiles/prod.cue:12:3: error: prod: message [rule]
//	    see profiles/base.cue:4:2
//	    hint: ...
//	error: cluster prod [doctor/kubernetes-version]
//	    expected: Kubernetes 1.32
//	    found:    Kubernetes 1.30
//	    hint:     ...
//
// The environment is named because environments often share a field
// (and so its position) through a common base. A finding that several
// environments share that way is printed once, naming them all.
func Findings(w io.Writer, fs []diag.Finding) {
	for i := 0; i < len(fs); i++ {
		f := fs[i]
		var envs []string
		if f.Env != "" {
			envs = append(envs, f.Env)
		}
		for i+1 < len(fs) && diag.SameButEnv(fs[i+1], f) {
			i++
			envs = append(envs, fs[i].Env)
		}
		sort.Strings(envs)
		f.Env = strings.Join(envs, ", ")
		io.WriteString(w, Line(f)+"\n")
		for _, p := range f.Also {
			fmt.Fprintf(w, "    see %s\n", escape.Terminal(p.String()))
		}
		// Labels line up when there is more than a hint.
		width := 0
		if f.Expected != "" || f.Found != "" {
			width = len("expected:")
			fmt.Fprintf(w, "    %-*s %s\n", width, "expected:", escape.Terminal(f.Expected))
			fmt.Fprintf(w, "    %-*s %s\n", width, "found:", escape.Terminal(f.Found))
		}
		if f.Hint != "" {
			fmt.Fprintf(w, "    %-*s %s\n", width, "hint:", escape.Terminal(f.Hint))
		}
	}
}

// Line is a finding's head line: its position when it has one, the
// severity, the environment, the resource and message, and the rule.
// Messages, resources and file names may carry text of profiles and
// captured state (a Jsonnet error, a status message, a file name):
// nothing of it may act on a terminal or start a CI workflow command.
func Line(f diag.Finding) string {
	// A line starts with its position, escaped so that no file name
	// starts a workflow command, or with the severity.
	var parts []string
	if f.Pos.IsValid() {
		parts = append(parts, escape.Line(f.Pos.String()))
	}
	parts = append(parts, string(f.Severity))
	for _, s := range []string{f.Env, f.Resource, f.Message} {
		if s != "" {
			parts = append(parts, escape.Terminal(s))
		}
	}
	return strings.Join(parts, ": ") + " [" + f.Rule + "]"
}

// FindingsJSON writes findings as one JSON document.
func FindingsJSON(w io.Writer, fs []diag.Finding) error {
	if fs == nil {
		fs = []diag.Finding{}
	}
	return JSON(w, struct {
		Findings []diag.Finding `json:"findings"`
	}{fs})
}
