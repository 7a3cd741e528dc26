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

// bigFleet is where the heap of the evaluated profiles alone nears the
// limit: past it a fixed limit would make the collector run without
// pause (4,000 environments took 37 s instead of 8), so the runtime's
// default pace comes back, under a limit that grows with the fleet.
const bigFleet = 300

// perEnvironment is what the limit allows each environment: the package's
// evaluated CUE stays live until every environment is checked, about
// 55 KiB of heap each (4,000 environments: 210 MiB live after the load),
// so the limit sits well above what is live and the collector only works
// harder when the default pace would let garbage double the heap
// (10,000 environments peaked at 1.4 GiB without a limit, 0.9 GiB with).
const (
	perEnvironment  = 90 << 10
	fleetLimitFloor = 768 << 20
)

// fleetGC is told how many environments a command evaluates.
func fleetGC(envs int) {
	if envs < bigFleet || os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	debug.SetGCPercent(100)
	debug.SetMemoryLimit(max(fleetLimitFloor, int64(envs)*perEnvironment))
}

// diffGC is fleetGC for diff, which writes nothing and keeps one side's
// bundles while it renders the other: it lets the heap grow three times
// what is live between collections instead of once, under the same
// limit (a diff of 1,000 environments, one run each on a noisy machine:
// 5.2 s and 210 MiB at GOGC=100, 4.4 s and 310 MiB at 200, 3.6 s and
// 450 MiB at 400; at 300, 3.3 to 4.5 s and 380 MiB).
func diffGC(envs int) {
	fleetGC(envs)
	if envs >= bigFleet && os.Getenv("GOGC") == "" && os.Getenv("GOMEMLIMIT") == "" {
		debug.SetGCPercent(300)
	}
}
