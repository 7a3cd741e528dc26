package simulate

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// Helper is the name of the binary that runs the scheduler.
const Helper = "karpgen-simulate"

// ErrNoHelper says karpgen-simulate is neither beside karpgen nor on
// PATH.
var ErrNoHelper = errors.New(Helper + " is neither beside karpgen nor on PATH: `make simulator` builds it into bin/ (releases ship it beside karpgen)")

// FindHelper is karpgen-simulate beside the running executable, else on
// PATH.
func FindHelper() (string, error) {
	if self, err := os.Executable(); err == nil {
		p := filepath.Join(filepath.Dir(self), Helper)
		if info, err := os.Stat(p); err == nil && !info.IsDir() {
			return p, nil
		}
	}
	if p, err := exec.LookPath(Helper); err == nil {
		return p, nil
	}
	return "", ErrNoHelper
}

// Run sends the request to the helper and reads its answer.
func Run(ctx context.Context, helper string, req *Request, timeout time.Duration) (*Response, error) {
	in, err := json.Marshal(req)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, helper)
	// Karpenter reads its options from the environment as well as its
	// flags (FEATURE_GATES, PREFERENCE_POLICY...): the caller's must not
	// change where pods land.
	cmd.Env = []string{}
	cmd.Stdin = bytes.NewReader(in)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("%s: no answer within %s", Helper, timeout)
		}
		return nil, fmt.Errorf("%s: %w: %s", Helper, err, strings.TrimSpace(stderr.String()))
	}
	var resp Response
	if err := json.Unmarshal(stdout.Bytes(), &resp); err != nil {
		return nil, fmt.Errorf("%s: its answer: %w", Helper, err)
	}
	if len(resp.Workloads) != len(req.Workloads) {
		return nil, fmt.Errorf("%s: %d placements for %d workloads", Helper, len(resp.Workloads), len(req.Workloads))
	}
	return &resp, nil
}
