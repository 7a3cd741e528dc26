// Package envcheck is what karpgen knows of one loaded environment: its
// resolved model, the guardrails it names, what the rule catalog says of
// it and, for a command that renders what it checks, its bundle rendered
// beside the rules. The loader hands each environment over while its
// source (where each field was written) is at hand, so that findings
// carry positions and a large package's CUE values need not outlive its
// batch.
package envcheck

import (
	"io/fs"
	"sync"

	"github.com/karpgen/karpgen/internal/diag"
	"github.com/karpgen/karpgen/internal/iam/guardrails"
	"github.com/karpgen/karpgen/internal/lint"
	"github.com/karpgen/karpgen/internal/load"
	"github.com/karpgen/karpgen/internal/model"
	"github.com/karpgen/karpgen/internal/util/gcpolicy"
	"github.com/karpgen/karpgen/internal/util/progress"
)

// Checker checks the environments of one profiles folder and keeps their
// resolved models. It is safe for concurrent use.
type Checker struct {
	fsys  fs.FS
	dir   string
	today string
	// Meter, when set, counts the environments checked.
	Meter *progress.Meter
	// GC is the collector's policy, sized to the environments.
	GC gcpolicy.Policy
	// RenderAhead renders a lone environment beside its rules (see
	// Rendered).
	RenderAhead bool

	// envs is how many environments the loader evaluates.
	envs     int
	mu       sync.Mutex
	resolved map[string]*model.Env
	ahead    map[*model.Env]chan rendered
}

// New checks the environments of the folder fsys, shown as dir; today
// (YYYY-MM-DD) turns on the rules that depend on the day ("" leaves them
// off).
func New(fsys fs.FS, dir, today string) *Checker {
	return &Checker{fsys: fsys, dir: dir, today: today, resolved: map[string]*model.Env{}, ahead: map[*model.Env]chan rendered{}}
}

// Size is told how many environments the loader will hand over, and
// whether in batches: the meter starts counting them, the collector is
// sized to them, and a lone one may be rendered ahead.
func (c *Checker) Size(envs int, batched bool) {
	c.envs = envs
	c.Meter.Begin(progress.Evaluating, envs)
	c.GC.Size(envs, batched)
}

// Check resolves an environment, loads the guardrails it names and runs
// the rule catalog on it.
func (c *Checker) Check(src *load.Env) []diag.Finding {
	e := model.Resolve(src.Profile)
	g, findings := guardrails.Load(c.fsys, c.dir, src.Profile.Guardrails, src.Source.Pos)
	for i := range findings {
		findings[i].Env = e.Name
	}
	e.Guardrails = g
	c.mu.Lock()
	c.resolved[e.Name] = e
	c.mu.Unlock()
	c.renderAhead(e)
	findings = append(findings, lint.CheckOn(e, src.Source, c.today)...)
	c.Meter.Step()
	return findings
}

// Resolved is the model of a checked environment.
func (c *Checker) Resolved(name string) *model.Env {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.resolved[name]
}
