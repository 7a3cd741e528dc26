package main

import (
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
