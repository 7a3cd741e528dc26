package main

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"golang.org/x/term"

	"github.com/karpgen/karpgen/internal/util/progress"
)

// progressLine draws "evaluating N/M environments", then "rendering N/M
// environments", on one line of stderr for a render that takes longer
// than a second: only when stderr is a terminal and CI is not set, unless
// asked (--progress). It says nothing of itself otherwise, so CI logs
// stay as they are. It reads a meter the work counts on, a few times a
// second, from its own goroutine. A nil progressLine draws nothing.
type progressLine struct {
	w     io.Writer
	start time.Time
	every time.Duration

	mu    sync.Mutex
	m     *progress.Meter
	shown string        // the last line drawn
	width int           // of the line on the terminal, 0 when none
	stop  chan struct{} // closed by end
	done  chan struct{} // closed when the drawing goroutine is gone
}

// newProgress returns a progress line for w, or nil when none is wanted;
// start is when the command started.
func newProgress(w io.Writer, asked bool, start time.Time) *progressLine {
	if !asked {
		f, ok := w.(*os.File)
		if !ok || !term.IsTerminal(int(f.Fd())) || os.Getenv("CI") != "" {
			return nil
		}
	}
	return &progressLine{w: w, start: start, every: 100 * time.Millisecond}
}

// watch draws m until end.
func (p *progressLine) watch(m *progress.Meter) {
	if p == nil {
		return
	}
	p.mu.Lock()
	p.m = m
	p.stop, p.done = make(chan struct{}), make(chan struct{})
	stop, done := p.stop, p.done
	p.mu.Unlock()
	go func() {
		defer close(done)
		t := time.NewTicker(p.every)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				p.draw()
			}
		}
	}()
}

// draw shows the meter, when a second has passed and it moved.
func (p *progressLine) draw() {
	p.mu.Lock()
	defer p.mu.Unlock()
	phase, done, total := p.m.Read()
	if phase == progress.Idle || time.Since(p.start) < time.Second {
		return
	}
	line := fmt.Sprintf("%s %d/%d environments", phase, done, total)
	if line == p.shown {
		return
	}
	p.shown = line
	p.width = max(p.width, len(line))
	fmt.Fprintf(p.w, "\r%-*s", p.width, line)
}

// end stops drawing and clears the line, so that what follows starts on
// an empty one.
func (p *progressLine) end() {
	if p == nil {
		return
	}
	p.mu.Lock()
	stop, done := p.stop, p.done
	p.stop, p.done = nil, nil
	p.mu.Unlock()
	if stop != nil {
		close(stop)
		<-done
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.width > 0 {
		fmt.Fprintf(p.w, "\r%*s\r", p.width, "")
		p.width, p.shown = 0, ""
	}
}
