package main

import (
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/karpgen/karpgen/internal/output"
)

// outFlags are the flags of every command that writes into out/ (render,
// upgrade --write): the folder, and how long to wait for another
// writer's lock on it. Both commands check the folder against the
// profiles folder the same way and lock it the same way.
type outFlags struct {
	dir      string
	lockWait time.Duration
}

func (o *outFlags) add(fs *pflag.FlagSet, usage string) {
	fs.StringVar(&o.dir, flagOut, "out", usage)
	fs.DurationVar(&o.lockWait, "lock-wait", 30*time.Second, "how long to wait for another karpgen writing the same --out")
}

// open locks and opens the out folder.
func (o *outFlags) open(opts output.DiskOptions) (*output.Disk, error) {
	opts.LockWait = o.lockWait
	return output.NewDisk(o.dir, opts)
}

// separate refuses an out folder that is, holds or lies inside the
// profiles folder: a render replaces folders in out/.
func (o *outFlags) separate(cmd, profiles string) error {
	p, d := realPath(profiles), realPath(o.dir)
	switch {
	case p == d:
		return usageErr("%s: --out %s is the profiles folder", cmd, o.dir)
	case strings.HasPrefix(p, d+string(filepath.Separator)):
		return usageErr("%s: --out %s holds the profiles folder %s; write into a folder of its own", cmd, o.dir, profiles)
	case strings.HasPrefix(d, p+string(filepath.Separator)):
		return usageErr("%s: --out %s lies inside the profiles folder %s; write into a folder of its own", cmd, o.dir, profiles)
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
