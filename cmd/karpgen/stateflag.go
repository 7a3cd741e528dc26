package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/spf13/pflag"

	"github.com/karpgen/karpgen/internal/doctor"
	"github.com/karpgen/karpgen/internal/live"
	"github.com/karpgen/karpgen/internal/model"
)

// stateFlag is --state DIR of the plans: the folder doctor's capture
// script wrote, which they plan from.
type stateFlag struct{ dir string }

func (s *stateFlag) add(fs *pflag.FlagSet) {
	fs.StringVar(&s.dir, "state", "", "plan from what this capture (karpgen doctor --capture-script) says the account and cluster hold")
}

// read is the capture for one environment, nil without --state. The
// folder is read as doctor reads it: regular files only, none past a
// bound, none through a link.
func (s *stateFlag) read(cmd string, e *model.Env) (*live.Cluster, error) {
	if s.dir == "" {
		return nil, nil
	}
	info, err := os.Stat(s.dir)
	if err != nil || !info.IsDir() {
		return nil, fmt.Errorf("%s: the state folder %s cannot be read: %v", cmd, s.dir, err)
	}
	root, err := os.OpenRoot(s.dir)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", cmd, err)
	}
	defer root.Close()
	c, err := doctor.Live(e, doctor.NewState(root.FS(), s.dir))
	var se *doctor.StateError
	if errors.As(err, &se) {
		return nil, fmt.Errorf("%s: %s/%w", cmd, s.dir, err)
	}
	return c, err
}
