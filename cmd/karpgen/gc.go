package main

import (
	"math"
	"os"
	"runtime/debug"
)

// memoryLimit bounds the heap of a fleet render; below it the collector
// runs rarely, so a single environment renders without collecting at all.
const memoryLimit = 150 << 20

// tuneGC trades the collector's default eagerness for speed while keeping
// peak memory bounded. GOGC or GOMEMLIMIT in the environment take
// precedence.
func tuneGC() {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	debug.SetGCPercent(400)
	debug.SetMemoryLimit(memoryLimit)
}

// bigFleet is where the heap of the evaluated profiles alone nears the
// limit: past it a limit would make the collector run without pause
// (4,000 environments took 37 s instead of 8), so the runtime's defaults
// come back.
const bigFleet = 300

// fleetGC is told how many environments a command evaluates.
func fleetGC(envs int) {
	if envs < bigFleet || os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	debug.SetGCPercent(100)
	debug.SetMemoryLimit(math.MaxInt64)
}
