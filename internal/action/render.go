package action

import (
	"errors"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/karpgen/karpgen/internal/output"
	"github.com/karpgen/karpgen/internal/plan/upgrade"
	"github.com/karpgen/karpgen/internal/printer"
	"github.com/karpgen/karpgen/internal/util/progress"
)

// Out is the folder the bundles are written into (render, upgrade
// --write), and how long to wait for another writer's lock on it.
type Out struct {
	Dir      string
	LockWait time.Duration
}

// open locks and opens the folder.
func (o Out) open(opts output.DiskOptions) (*output.Disk, error) {
	opts.LockWait = o.LockWait
	return output.NewDisk(o.Dir, opts)
}

// Separate refuses an out folder that is, holds or lies inside the
// profiles folder: a render replaces folders in out/.
func (o Out) Separate(cmd, profiles string) error {
	p, d := realPath(profiles), realPath(o.Dir)
	switch {
	case p == d:
		return usage("%s: --out %s is the profiles folder", cmd, o.Dir)
	case strings.HasPrefix(p, d+string(filepath.Separator)):
		return usage("%s: --out %s holds the profiles folder %s; write into a folder of its own", cmd, o.Dir, profiles)
	case strings.HasPrefix(d, p+string(filepath.Separator)):
		return usage("%s: --out %s lies inside the profiles folder %s; write into a folder of its own", cmd, o.Dir, profiles)
	}
	return nil
}

// realPath is the absolute path with symbolic links resolved as far as
// the path exists.
func realPath(path string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		return filepath.Clean(path)
	}
	rest := ""
	for dir := abs; ; dir = filepath.Dir(dir) {
		if real, err := filepath.EvalSymlinks(dir); err == nil {
			return filepath.Join(real, rest)
		}
		if dir == filepath.Dir(dir) {
			return abs
		}
		rest = filepath.Join(filepath.Base(dir), rest)
	}
}

// Render renders the profiles into out/ (karpgen render): Load checks
// them, and Write, once the findings are shown, writes every bundle, or
// with Check compares them with out/.
type Render struct {
	Eval
	Dir  string
	Envs []string
	Out  Out
	// Check compares with out/ and writes nothing.
	Check bool
	// DeleteForeign deletes files of out/<env>/ karpgen did not write.
	DeleteForeign bool
	// State is one environment's capture, whose deploy SUMMARY.md then
	// previews.
	State string
	// Meter counts evaluated and rendered environments.
	Meter *progress.Meter
	// Stdout and Stderr take the sink's report: what was written, or the
	// differences found.
	Stdout, Stderr io.Writer
}

// Load checks the profiles.
func (r *Render) Load() (*Result, error) {
	if err := r.Out.Separate("render", r.Dir); err != nil {
		return nil, err
	}
	if r.State != "" && len(r.Envs) != 1 {
		return nil, usage("render: --state is one environment's capture: name exactly that environment")
	}
	opts := r.options(r.Dir, r.Envs)
	opts.Meter, opts.RenderAhead = r.Meter, true
	return Check(opts)
}

// Write renders what Load checked, every environment valid.
func (r *Render) Write(res *Result) error {
	if r.State != "" && len(res.Envs) == 1 {
		if err := res.ReadState("render", r.State); err != nil {
			return err
		}
	}
	if r.Check {
		err := res.Render(&output.Check{Dir: r.Out.Dir, Stdout: r.Stdout, Names: res.Names, Replan: res.Replanner()})
		var differs *output.DiffersError
		if errors.As(err, &differs) {
			return &FoundError{Err: err}
		}
		return err
	}
	// The sink stages every bundle before it changes anything in out/,
	// and puts back what it replaced when a later step fails.
	opts := output.DiskOptions{DeleteForeign: r.DeleteForeign, Stdout: r.Stdout, Stderr: r.Stderr, Replan: res.Replanner()}
	if res.All {
		opts.Names = res.Names
	}
	disk, err := r.Out.open(opts)
	if err != nil {
		return err
	}
	defer disk.Close()
	return res.Render(disk)
}

// WritePlan writes an upgrade plan and what it applies into
// out/<env>/upgrade/<to>/ (upgrade --write); w takes what was written.
func WritePlan(plan *upgrade.Plan, out Out, w io.Writer) error {
	b, err := printer.UpgradeFolder(plan)
	if err != nil {
		return err
	}
	disk, err := out.open(output.DiskOptions{Stdout: w, Stderr: w})
	if err != nil {
		return err
	}
	defer disk.Close()
	if err := disk.Put(b); err != nil {
		return err
	}
	return disk.Finish(nil)
}

// Build is the Kubernetes objects of one environment as one YAML stream,
// its overlay applied (karpgen build, the Argo CD plugin's generate).
type Build struct {
	Eval
	Dir, Env   string
	AllowKinds []string
	Stdout     io.Writer
}

// Run builds and writes the stream to Stdout, after the result is checked
// again; nothing is written on a failure.
func (b *Build) Run() error {
	opts := b.options(b.Dir, []string{b.Env})
	opts.RenderAhead = true
	res, err := checkNamed(opts)
	if err != nil {
		return err
	}
	return res.Render(&output.Build{
		Overlays:   filepath.Join(b.Dir, "overlays"),
		AllowKinds: b.AllowKinds,
		Stdout:     b.Stdout,
		Env:        res.Envs[0],
	})
}
