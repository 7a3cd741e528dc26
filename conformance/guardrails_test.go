package conformance

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/karpgen/karpgen/internal/diag"
	"github.com/karpgen/karpgen/internal/iam/guardrails"
	"github.com/karpgen/karpgen/internal/model"
	"github.com/karpgen/karpgen/internal/profile"
)

// TestFullAWSAccessDeniesNothing: under FullAWSAccess at every level of
// the organization, with and without the interruption queue and in both
// auth modes, no request of the rich profile of any minor is denied, and
// none is allowed only because a key is absent.
func TestFullAWSAccessDeniesNothing(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "FullAWSAccess.json"), []byte(`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"*","Resource":"*"}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	g := &profile.Guardrails{Organization: []profile.GuardrailLevel{
		{Name: "root", Policies: []string{"FullAWSAccess.json"}}, {Name: "workloads", Policies: []string{"FullAWSAccess.json"}},
	}}
	for _, m := range minors() {
		for _, auth := range []string{profile.AuthPodIdentity, profile.AuthIRSA} {
			for _, queue := range []bool{true, false} {
				p := richProfile(variant{m, auth, queue})
				p.Guardrails = g
				e := model.Resolve(p)
				loaded, findings := guardrails.Load(os.DirFS(dir), dir, g, func(string) diag.Pos { return diag.Pos{} })
				if len(findings) > 0 {
					t.Fatal(findings)
				}
				e.Guardrails = loaded
				denials, err := guardrails.Check(e)
				if err != nil || len(denials) > 0 {
					t.Errorf("%s %s queue=%v: %v %v", m.Minor, auth, queue, err, denials)
				}
				if us, err := guardrails.Uncertainties(e); err != nil || len(us) > 0 {
					t.Errorf("%s %s queue=%v: uncertain %v %v", m.Minor, auth, queue, err, us)
				}
				if n := len(guardrails.Requests(e)); n < 20 {
					t.Errorf("%s: %d requests", m.Minor, n)
				}
			}
		}
	}
}
