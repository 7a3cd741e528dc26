// Package progress counts how far a command is through its fleet: the
// environments evaluated, then the bundles rendered. The work adds to the
// counts and the command reads them when it draws a progress line, so
// progress never calls back into the command.
package progress

import "sync"

// Phase is what the command is doing.
type Phase int

const (
	// Idle: nothing counted yet.
	Idle Phase = iota
	// Evaluating the profiles and checking each environment.
	Evaluating
	// Rendering the bundles.
	Rendering
)

func (p Phase) String() string {
	switch p {
	case Evaluating:
		return "evaluating"
	case Rendering:
		return "rendering"
	}
	return "idle"
}

// Meter holds the phase and its counts. The zero Meter is idle; a nil
// Meter counts nothing. It is safe for concurrent use.
type Meter struct {
	mu          sync.Mutex
	phase       Phase
	done, total int
}

// Begin starts a phase of total steps.
func (m *Meter) Begin(p Phase, total int) {
	if m == nil {
		return
	}
	m.mu.Lock()
	m.phase, m.done, m.total = p, 0, total
	m.mu.Unlock()
}

// Step counts one step of the phase done.
func (m *Meter) Step() {
	if m == nil {
		return
	}
	m.mu.Lock()
	m.done++
	m.mu.Unlock()
}

// Read returns the phase and how many of its steps are done, of how many.
func (m *Meter) Read() (p Phase, done, total int) {
	if m == nil {
		return Idle, 0, 0
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.phase, m.done, m.total
}
