package progress

import (
	"sync"
	"testing"
)

func TestMeter(t *testing.T) {
	var m Meter
	if p, d, n := m.Read(); p != Idle || d != 0 || n != 0 {
		t.Fatalf("zero meter reads %v %d/%d", p, d, n)
	}
	m.Begin(Evaluating, 100)
	var wg sync.WaitGroup
	for range 100 {
		wg.Go(m.Step)
	}
	wg.Wait()
	if p, d, n := m.Read(); p != Evaluating || d != 100 || n != 100 || p.String() != "evaluating" {
		t.Errorf("after 100 steps: %v %d/%d", p, d, n)
	}
	m.Begin(Rendering, 3)
	m.Step()
	if p, d, n := m.Read(); p != Rendering || d != 1 || n != 3 || p.String() != "rendering" {
		t.Errorf("a new phase: %v %d/%d, want rendering 1/3", p, d, n)
	}
	var none *Meter
	none.Begin(Rendering, 1)
	none.Step()
	if p, _, _ := none.Read(); p != Idle {
		t.Errorf("a nil meter reads %v", p)
	}
}
