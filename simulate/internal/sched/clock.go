package sched

import (
	"time"

	"k8s.io/utils/clock"
)

// stillClock is the time a captured cluster is decided at. It does not
// move: every budget, consolidateAfter and disruption cost is read at the
// one instant. A wait (the disruption controller waits before it
// validates a command) ends at once, for nothing changes the captured
// cluster while it waits.
type stillClock struct{ now time.Time }

var _ clock.Clock = stillClock{}

func (c stillClock) Now() time.Time                  { return c.now }
func (c stillClock) Since(t time.Time) time.Duration { return c.now.Sub(t) }
func (c stillClock) Sleep(time.Duration)             {}

func (c stillClock) After(d time.Duration) <-chan time.Time { return c.fired(d) }
func (c stillClock) Tick(d time.Duration) <-chan time.Time  { return c.fired(d) }

func (c stillClock) NewTimer(d time.Duration) clock.Timer { return &firedTimer{c.fired(d)} }

func (c stillClock) fired(d time.Duration) <-chan time.Time {
	ch := make(chan time.Time, 1)
	ch <- c.now.Add(d)
	return ch
}

// firedTimer is a timer that has fired.
type firedTimer struct{ c <-chan time.Time }

func (t *firedTimer) C() <-chan time.Time      { return t.c }
func (t *firedTimer) Stop() bool               { return false }
func (t *firedTimer) Reset(time.Duration) bool { return false }
