// Package textdiff writes the unified diff of two versions of a file, as
// render --diff and karpgen diff show it.
package textdiff

import (
	"strings"

	"github.com/pmezard/go-difflib/difflib"
)

// noNewline follows a last line that has no newline, as diff and git
// print it.
const noNewline = "\n\\ No newline at end of file\n"

// Unified is the unified diff of a file from old to cur, named shown
// (a/shown, b/shown; /dev/null for the side that does not have it), with
// context lines around each change.
func Unified(shown string, old, cur []byte, inOld, inNew bool, context int) (string, error) {
	from, to := "a/"+shown, "b/"+shown
	if !inOld {
		from = "/dev/null"
	}
	if !inNew {
		to = "/dev/null"
	}
	return difflib.GetUnifiedDiffString(difflib.UnifiedDiff{A: lines(old), B: lines(cur), FromFile: from, ToFile: to, Context: context})
}

// lines splits text into lines that keep their newline; empty text has
// none. A last line without a newline carries the marker, so that it
// differs from the same line with one and the diff says why.
func lines(b []byte) []string {
	out := strings.SplitAfter(string(b), "\n")
	if out[len(out)-1] == "" {
		return out[:len(out)-1]
	}
	out[len(out)-1] += noNewline
	return out
}
