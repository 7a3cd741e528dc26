package fleetdiff

import (
	"strings"

	"github.com/pmezard/go-difflib/difflib"
)

// files diffs the files of two sides that pass keep, cutting each diff
// at MaxDiffLines lines.
func files(base, head map[string][]byte, keep func(string) bool) []File {
	out := []File{}
	for _, p := range union(base, head) {
		if string(base[p]) == string(head[p]) || !keep(p) {
			continue
		}
		_, inBase := base[p]
		_, inHead := head[p]
		from, to := "a/"+p, "b/"+p
		if !inBase {
			from = "/dev/null"
		}
		if !inHead {
			to = "/dev/null"
		}
		text, _ := difflib.GetUnifiedDiffString(difflib.UnifiedDiff{
			A: lines(base[p]), B: lines(head[p]),
			FromFile: from, ToFile: to, Context: 2,
		})
		diff := strings.SplitAfter(strings.TrimSuffix(text, "\n"), "\n")
		f := File{Path: p, Status: status(inBase, inHead), Lines: len(diff)}
		if len(diff) > MaxDiffLines {
			diff = diff[:MaxDiffLines]
		}
		f.Diff = strings.TrimSuffix(strings.Join(diff, ""), "\n") + "\n"
		out = append(out, f)
	}
	return out
}

// lines splits a file into lines, each with its newline; none for an
// empty or absent file.
func lines(text []byte) []string {
	if len(text) == 0 {
		return nil
	}
	return difflib.SplitLines(string(text))
}
