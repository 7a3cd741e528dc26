package fleetdiff

import (
	"strings"

	"github.com/karpgen/karpgen/internal/util/keys"
	"github.com/karpgen/karpgen/internal/util/textdiff"
)

// files diffs the files of two sides that pass keep, cutting each diff
// at MaxDiffLines lines.
func files(base, head map[string][]byte, keep func(string) bool) ([]File, error) {
	out := []File{}
	for _, p := range keys.Union(base, head) {
		if string(base[p]) == string(head[p]) || !keep(p) {
			continue
		}
		_, inBase := base[p]
		_, inHead := head[p]
		if drawn(p) {
			// A drawing's lines are coordinates: it is one changed file,
			// and SUMMARY.md's table says what changed in words.
			out = append(out, File{Path: p, Status: status(inBase, inHead)})
			continue
		}
		text, err := textdiff.Unified(p, base[p], head[p], inBase, inHead, 2)
		if err != nil {
			return nil, err
		}
		diff := strings.SplitAfter(strings.TrimSuffix(text, "\n"), "\n")
		f := File{Path: p, Status: status(inBase, inHead), Lines: len(diff)}
		if len(diff) > MaxDiffLines {
			diff = diff[:MaxDiffLines]
		}
		f.Diff = strings.TrimSuffix(strings.Join(diff, ""), "\n") + "\n"
		out = append(out, f)
	}
	return out, nil
}

// drawn says a file is a drawing karpgen makes (budgets.svg), which a
// diff shows as a file, not line by line.
func drawn(p string) bool { return strings.HasSuffix(p, ".svg") }
