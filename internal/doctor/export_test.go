package doctor

import "github.com/karpgen/karpgen/internal/model"

// CapturedFiles are the files the capture script of e writes, for the
// tests outside the package.
func CapturedFiles(e *model.Env) []string {
	var out []string
	for _, c := range commands(e) {
		out = append(out, c.file)
	}
	return out
}
