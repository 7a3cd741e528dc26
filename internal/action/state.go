package action

import (
	"errors"
	"fmt"
	"os"

	"github.com/karpgen/karpgen/internal/doctor"
	"github.com/karpgen/karpgen/internal/doctor/live"
	"github.com/karpgen/karpgen/internal/model"
)

// openState opens the folder doctor's capture script wrote, as doctor
// reads it: regular files only, none past a bound, none through a link.
func openState(cmd, dir string) (*doctor.State, func() error, error) {
	info, err := os.Stat(dir)
	if err != nil || !info.IsDir() {
		return nil, nil, fmt.Errorf("%s: the state folder %s cannot be read: %v", cmd, dir, err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", cmd, err)
	}
	return doctor.NewState(root.FS(), dir), root.Close, nil
}

// stateErr names the capture file a doctor.StateError is about.
func stateErr(cmd, dir string, err error) error {
	var se *doctor.StateError
	if errors.As(err, &se) {
		return fmt.Errorf("%s: %s/%w", cmd, dir, err)
	}
	return err
}

// ReadState is what the capture in dir says of the environment's account
// and cluster, as the plans read it (upgrade, migrate, promote, rotate,
// render --state); nil when dir is "".
func ReadState(cmd, dir string, e *model.Env) (*live.Cluster, error) {
	if dir == "" {
		return nil, nil
	}
	st, closeFn, err := openState(cmd, dir)
	if err != nil {
		return nil, err
	}
	defer closeFn()
	c, err := doctor.Live(e, st)
	return c, stateErr(cmd, dir, err)
}

// Doctor checks an account and a cluster against an environment's
// bundle, offline (karpgen doctor): it writes the script that captures
// them, and checks the folder that script wrote.
type Doctor struct {
	Eval
	Dir, Env string
}

// Script is the capture script of the environment: read-only aws,
// kubectl and helm commands.
func (d *Doctor) Script() (string, error) {
	envs, err := named(d.Dir, []string{d.Env}, d.Eval, false)
	if err != nil {
		return "", err
	}
	return doctor.Script(envs[0]), nil
}

// Run checks the capture in state against the environment's bundle.
func (d *Doctor) Run(state string) (*doctor.Report, error) {
	envs, err := named(d.Dir, []string{d.Env}, d.Eval, false)
	if err != nil {
		return nil, err
	}
	st, closeFn, err := openState("doctor", state)
	if err != nil {
		return nil, err
	}
	defer closeFn()
	report, err := doctor.Run(envs[0], st)
	return report, stateErr("doctor", state, err)
}

// ReadState reads the capture in dir as the cluster of the one
// environment of the result, whose render then previews its deploy.
func (r *Result) ReadState(cmd, dir string) error {
	if len(r.Envs) != 1 {
		return usage("%s: --state is one environment's capture: name exactly that environment", cmd)
	}
	c, err := ReadState(cmd, dir, r.Envs[0])
	if err != nil {
		return err
	}
	r.Live = map[string]*live.Cluster{r.Envs[0].Name: c}
	return nil
}
