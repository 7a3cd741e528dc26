package main

import (
	"bytes"
	"testing"
	"time"
)

// TestProgressLine: a render running for over a second shows done/total
// on one line (every tenth environment and the last), evaluating then
// rendering, and clears it at the end; one that is quick shows nothing; a writer that is not a terminal
// gets nothing unless asked.
func TestProgressLine(t *testing.T) {
	var buf bytes.Buffer
	if newProgress(&buf, false, time.Now()) != nil {
		t.Fatal("a progress line for a writer that is not a terminal, unasked")
	}
	quick := newProgress(&buf, true, time.Now())
	quick.rendered(10, 20)
	quick.end()
	if buf.Len() != 0 {
		t.Fatalf("a quick render showed %q", buf.String())
	}
	slow := newProgress(&buf, true, time.Now().Add(-2*time.Second))
	for i := 1; i <= 20; i++ {
		slow.rendered(i, 20)
	}
	slow.end()
	want := "\rrendering 10/20 environments\rrendering 20/20 environments\r                            \r"
	if buf.String() != want {
		t.Errorf("progress printed %q, want %q", buf.String(), want)
	}
	// Evaluating, then rendering: a shorter line pads over a longer one.
	buf.Reset()
	both := newProgress(&buf, true, time.Now().Add(-2*time.Second))
	both.evaluated(10, 10)
	both.rendered(9, 10)
	both.rendered(10, 10)
	both.end()
	want = "\revaluating 10/10 environments\rrendering 10/10 environments \r                             \r"
	if buf.String() != want {
		t.Errorf("progress printed %q, want %q", buf.String(), want)
	}
	var none *progress
	none.evaluated(1, 1)
	none.end()
}
