package main

import (
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/karpgen/karpgen/internal/output"
	"github.com/karpgen/karpgen/internal/pipeline"
	"github.com/karpgen/karpgen/internal/upgrade"
	"github.com/karpgen/karpgen/internal/util/gcpolicy"
	"github.com/karpgen/karpgen/internal/util/progress"
)

func runRender(args []string, stdout, stderr io.Writer) error {
	start := time.Now()
	var dir, out string
	var check, deleteForeign, showProgress bool
	var lockWait time.Duration
	fs := newFlags("render", stdout, stderr)
	addProfilesFlag(fs, &dir)
	var ev evalFlags
	addEvalFlags(fs, &ev)
	fs.StringVar(&out, flagOut, "out", "folder of the rendered bundles, one folder per environment")
	fs.BoolVar(&check, flagCheck, false, "render in memory, print a diff against --out and exit 1 when anything differs; write nothing")
	fs.BoolVar(&deleteForeign, "delete-foreign", false, "delete files in out/<env>/ that karpgen did not write (by default they stop the render)")
	fs.DurationVar(&lockWait, "lock-wait", 30*time.Second, "how long to wait for another render of the same --out")
	fs.BoolVar(&showProgress, "progress", false, "show evaluated and rendered environments (done/total) on stderr even when it is not a terminal (by default only on a terminal, never in CI)")
	if err := parse(fs, args); err != nil {
		return err
	}
	if err := separate(dir, out); err != nil {
		return err
	}
	m := new(progress.Meter)
	p := newProgress(stderr, showProgress, start)
	p.watch(m)
	res, err := pipeline.Check(pipeline.Options{Dir: dir, Envs: fs.Args(), Timeout: ev.timeout, Limits: &ev.limits, GC: gcpolicy.Fleet, Meter: m})
	p.end()
	if err != nil {
		return err
	}
	if err := printFindings(stderr, res.Findings); err != nil {
		return err
	}
	p.watch(m)
	defer p.end()
	if check {
		return res.Render(&output.Check{Dir: out, Stdout: stdout, Names: res.Names, Replan: upgrade.Replanner(res.Envs)})
	}
	// Every profile is valid here. The sink stages every bundle before it
	// changes anything in out/, and puts back what it replaced when a
	// later step fails.
	opts := output.DiskOptions{DeleteForeign: deleteForeign, LockWait: lockWait, Stdout: stdout, Stderr: stderr, Replan: upgrade.Replanner(res.Envs)}
	if res.All {
		opts.Names = res.Names
	}
	disk, err := output.NewDisk(out, opts)
	if err != nil {
		return err
	}
	defer disk.Close()
	return res.Render(disk)
}

// separate refuses an out folder that is, holds or lies inside the
// profiles folder: a render replaces folders in out/.
func separate(profiles, out string) error {
	p, o := realPath(profiles), realPath(out)
	switch {
	case p == o:
		return usageErr("render: --out %s is the profiles folder", out)
	case strings.HasPrefix(p, o+string(filepath.Separator)):
		return usageErr("render: --out %s holds the profiles folder %s; render into a folder of its own", out, profiles)
	case strings.HasPrefix(o, p+string(filepath.Separator)):
		return usageErr("render: --out %s lies inside the profiles folder %s; render into a folder of its own", out, profiles)
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
