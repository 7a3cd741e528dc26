package doctor_test

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"unicode"

	"github.com/karpgen/karpgen/internal/doctor"
)

// FuzzState feeds mutated captures to doctor: whatever a state file
// holds, doctor never panics, a file it cannot read is a *StateError
// naming it, and the text report holds no character a terminal acts on.
func FuzzState(f *testing.F) {
	e := prodEnv(f)
	h := healthy(f, e)
	for _, name := range []string{"eks-cluster.json", "k8s-nodepools.json", "k8s-crds.json", "helm-values.json", "iam-node-role.json"} {
		data, _ := json.Marshal(h[name])
		f.Add(name, string(data))
	}
	f.Add("k8s-nodepools.json", `{"items":[{"metadata":{"name":"a\u001b[2J"},"status":{"conditions":[{"type":"Ready","status":"False","message":"\r\u0007"}]}}]}`)
	f.Add("eks-cluster.json", `{"error":{"code":"ExpiredToken","message":"\t"}}`)
	f.Add("k8s-webhooks.json", `{"items":[{"kind":"X","metadata":{"name":"karpenter-$(id)"}}]}`)
	f.Fuzz(func(t *testing.T, name, content string) {
		if filepath.Base(name) != name || name == "." || name == ".." || name == "" {
			return
		}
		dir := t.TempDir()
		for n, v := range h {
			data, _ := json.Marshal(v)
			os.WriteFile(filepath.Join(dir, n), data, 0o644)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			return
		}
		r, err := doctor.Run(e, doctor.NewState(os.DirFS(dir), dir))
		if err != nil {
			var se *doctor.StateError
			if !errors.As(err, &se) || se.File != name {
				t.Fatalf("%s: error %v names no file of the capture", name, err)
			}
			return
		}
		for _, r := range text(r) {
			if r != '\n' && !unicode.IsGraphic(r) {
				t.Fatalf("%s: the report holds %U", name, r)
			}
		}
	})
}
