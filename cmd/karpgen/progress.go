package main

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"golang.org/x/term"
)

// progress prints "rendering N/M environments" on one line of stderr
// for a render that takes longer than a second: only when stderr is a
// terminal and CI is not set, unless asked (--progress). It says nothing
// of itself otherwise, so CI logs stay as they are.
type progress struct {
	w     io.Writer
	start time.Time

	mu          sync.Mutex
	done, total int
	shown       bool
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

// rendered is told after each environment.
func (p *progress) rendered(done, total int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done, p.total = done, total
	if time.Since(p.start) < time.Second || (done < total && done%10 != 0) {
		return
	}
	fmt.Fprintf(p.w, "\rrendering %d/%d environments", done, total)
	p.shown = true
}

// end clears the line.
func (p *progress) end() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.shown {
		fmt.Fprintf(p.w, "\r%*s\r", len(fmt.Sprintf("rendering %d/%d environments", p.total, p.total)), "")
	}
}
