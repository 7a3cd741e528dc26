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
	"strconv"
	"strings"
	"time"

	"github.com/karpgen/karpgen/internal/simulate/wire"
	"github.com/karpgen/karpgen/internal/util/escape"
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

// ErrTimeout is a simulation, its reading of the workloads included, that
// did not end within the time given it.
var ErrTimeout = errors.New("no answer within the time given (--sim-timeout)")

// maxAnswer bounds what is read of the helper's answer, as the helper
// bounds what it reads of the request.
const maxAnswer = 256 << 20

// waitDelay is how long Run waits, once the helper is killed or has
// exited, for whatever it started to let go of its output.
const waitDelay = 2 * time.Second

// Run sends the request to the helper and reads its answer, within ctx's
// deadline. The helper must answer in this karpgen's wire.Protocol.
func Run(ctx context.Context, helper string, req *Request) (*Response, error) {
	in, err := json.Marshal(req)
	if err != nil {
		return nil, err
	}
	cmd := exec.CommandContext(ctx, helper)
	// A child of the helper that keeps its output open must not keep
	// karpgen waiting past the deadline.
	cmd.WaitDelay = waitDelay
	// Karpenter reads its options from the environment as well as its
	// flags (FEATURE_GATES, PREFERENCE_POLICY...): the caller's must not
	// change where pods land.
	cmd.Env = []string{}
	cmd.Stdin = bytes.NewReader(in)
	stdout, stderr := &boundedBuffer{max: maxAnswer}, &boundedBuffer{max: 64 << 10}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("%s: %w", Helper, ErrTimeout)
		}
		if stdout.over {
			return nil, fmt.Errorf("%s: its answer is larger than %d MiB", Helper, maxAnswer>>20)
		}
		return nil, fmt.Errorf("%s: %w: %s", Helper, err, escape.Terminal(strings.TrimSpace(stderr.String())))
	}
	var resp Response
	if err := json.Unmarshal(stdout.Bytes(), &resp); err != nil {
		return nil, fmt.Errorf("%s: its answer: %w", Helper, err)
	}
	if resp.Protocol != wire.Protocol {
		return nil, fmt.Errorf("%s (%s) answers in protocol %s, not %s: run the karpgen-simulate of this karpgen's release (make simulator builds it beside karpgen)",
			Helper, escape.Terminal(helper), escape.Terminal(strconv.Quote(resp.Protocol)), strconv.Quote(wire.Protocol))
	}
	if len(resp.Workloads) != len(req.Workloads) {
		return nil, fmt.Errorf("%s: %d placements for %d workloads", Helper, len(resp.Workloads), len(req.Workloads))
	}
	return &resp, nil
}

// boundedBuffer keeps at most max bytes; a write past them fails, which
// the helper sees as a broken pipe.
type boundedBuffer struct {
	bytes.Buffer
	max  int
	over bool
}

func (b *boundedBuffer) Write(p []byte) (int, error) {
	if b.Len()+len(p) > b.max {
		b.over = true
		return 0, fmt.Errorf("more than %d bytes", b.max)
	}
	return b.Buffer.Write(p)
}
