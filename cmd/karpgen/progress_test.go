package main

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/karpgen/karpgen/internal/util/progress"
)

// TestProgressLine: a render running for over a second shows the meter's
// done/total on one line, evaluating then rendering, drawn only when it
// moved, and clears it at the end; one that is quick shows nothing; a
// writer that is not a terminal gets nothing unless asked.
func TestProgressLine(t *testing.T) {
	var buf bytes.Buffer
	if newProgress(&buf, false, time.Now()) != nil {
		t.Fatal("a progress line for a writer that is not a terminal, unasked")
	}
	m := new(progress.Meter)
	quick := newProgress(&buf, true, time.Now())
	quick.m = m
	m.Begin(progress.Rendering, 20)
	quick.draw()
	quick.end()
	if buf.Len() != 0 {
		t.Fatalf("a quick render showed %q", buf.String())
	}

	slow := newProgress(&buf, true, time.Now().Add(-2*time.Second))
	slow.m = m
	m.Begin(progress.Evaluating, 10)
	for range 10 {
		m.Step()
	}
	slow.draw()
	slow.draw() // nothing moved: nothing drawn
	m.Begin(progress.Rendering, 10)
	for range 9 {
		m.Step()
	}
	slow.draw()
	m.Step()
	slow.draw()
	slow.end()
	// A shorter line pads over a longer one.
	want := "\revaluating 10/10 environments\rrendering 9/10 environments  \rrendering 10/10 environments \r                             \r"
	if buf.String() != want {
		t.Errorf("progress printed %q, want %q", buf.String(), want)
	}

	// Watching: the ticker draws what the work counts, and end stops it.
	buf.Reset()
	ticking := newProgress(&buf, true, time.Now().Add(-2*time.Second))
	ticking.every = time.Millisecond
	m.Begin(progress.Evaluating, 3)
	ticking.watch(m)
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(ticking.line(), "evaluating 0/3") && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	ticking.end()
	if got := buf.String(); !strings.HasPrefix(got, "\revaluating 0/3 environments") || !strings.HasSuffix(got, "\r"+strings.Repeat(" ", len("evaluating 0/3 environments"))+"\r") {
		t.Errorf("a watched meter printed %q", got)
	}
	after := buf.Len()
	m.Step()
	time.Sleep(5 * time.Millisecond)
	if buf.Len() != after {
		t.Errorf("drawn after end: %q", buf.String()[after:])
	}

	var none *progressLine
	none.watch(m)
	none.end()
}

// line is what was drawn last.
func (p *progressLine) line() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.shown
}
