package main

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"golang.org/x/term"
)

// progress prints "evaluating N/M environments", then "rendering N/M
// environments", on one line of stderr for a render that takes longer
// than a second: only when stderr is a terminal and CI is not set, unless
// asked (--progress). It says nothing of itself otherwise, so CI logs
// stay as they are. A nil progress prints nothing.
type progress struct {
	w     io.Writer
	start time.Time

	mu    sync.Mutex
	width int // of the line on the terminal, 0 when none
}

// newProgress returns a progress line for w, or nil when none is wanted;
// start is when the command started.
func newProgress(w io.Writer, asked bool, start time.Time) *progress {
	if !asked {
		f, ok := w.(*os.File)
		if !ok || !term.IsTerminal(int(f.Fd())) || os.Getenv("CI") != "" {
			return nil
		}
	}
	return &progress{w: w, start: start}
}

// evaluated is told after each environment is evaluated and checked.
func (p *progress) evaluated(done, total int) { p.step("evaluating", done, total) }

// rendered is told after each environment is rendered.
func (p *progress) rendered(done, total int) { p.step("rendering", done, total) }

func (p *progress) step(what string, done, total int) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if time.Since(p.start) < time.Second || (done < total && done%10 != 0) {
		return
	}
	line := fmt.Sprintf("%s %d/%d environments", what, done, total)
	p.width = max(p.width, len(line))
	fmt.Fprintf(p.w, "\r%-*s", p.width, line)
}

// end clears the line, so that what follows starts on an empty one.
func (p *progress) end() {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.width > 0 {
		fmt.Fprintf(p.w, "\r%*s\r", p.width, "")
		p.width = 0
	}
}
