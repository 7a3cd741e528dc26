// Package gcpolicy sizes Go's garbage collector to the fleet a command
// evaluates. GOGC or GOMEMLIMIT in the environment take precedence over
// every policy here.
//
// The collector's work is what it scans per cycle (the live heap: for a
// package evaluated whole, mostly its evaluated CUE; a large package
// evaluated in batches keeps two batches live) times the number
// of cycles (what is allocated, divided by the growth allowed between
// cycles). So karpgen lets the heap grow four times what is live between
// cycles, and bounds that with a soft memory limit sized to the fleet:
// small enough that 1,000 environments stay under 200 MiB and 10,000
// under 1 GiB, large enough that the limit never sits near what is live
// (which makes the collector run without pause).
//
// Measured on a render into tmpfs (2 cores, one run each, packages
// evaluated whole, before batches):
//
//	environments  GOGC=100, limit 768 MiB   GOGC=400, limit below
//	1,000         2.62 s, 179 MiB           2.13 s, 189 MiB (157 MiB)
//	2,000         4.74 s, 317 MiB           4.68 s, 327 MiB (293 MiB)
//	4,000         10.96 s, 569 MiB          8.48 s, 591 MiB (567 MiB)
//	10,000        33.42 s, 906 MiB          25.65 s, 944 MiB (900 MiB)
package gcpolicy

import (
	"os"
	"runtime/debug"
)

const (
	gcPercent = 400
	// limitFloor is the limit of a small render: one environment
	// renders without collecting at all.
	limitFloor = 150 << 20
	// limitBase and limitPerEnvironment grow the limit with the fleet.
	// A package evaluated whole (one that cannot be batched) keeps its
	// evaluated CUE live until every environment is checked, about
	// 55 KiB of heap each (4,000 environments: 210 MiB live after the
	// load).
	limitBase           = 20 << 20
	limitPerEnvironment = 140 << 10
	// limitCap keeps 10,000 environments under 1 GiB; past it the limit
	// stays at liveMargin per environment, above what is live.
	limitCap   = 900 << 20
	liveMargin = 80 << 10
	// batchedCap is the limit of a package evaluated in batches however
	// large (10,000 environments, one run each: 245k page faults and
	// 19.7 s at 900 MiB, 168k and 17.3 s at 600 MiB).
	batchedCap = 600 << 20
)

// userTuned reports GOGC or GOMEMLIMIT set in the environment.
func userTuned() bool { return os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" }

// Start sets the policy for a command of one environment, before the
// profiles are counted.
func Start() {
	if userTuned() {
		return
	}
	debug.SetGCPercent(gcPercent)
	debug.SetMemoryLimit(fleetLimit(1))
}

// fleetLimit is the soft memory limit for a command that evaluates envs
// environments.
func fleetLimit(envs int) int64 {
	n := int64(envs)
	limit := max(limitFloor, limitBase+n*limitPerEnvironment)
	return min(limit, max(limitCap, n*liveMargin))
}

// Policy is how the collector is sized once a command knows how many
// environments it evaluates.
type Policy int

const (
	// None leaves the collector as it is.
	None Policy = iota
	// Fleet is the policy of render, build, vet, doctor and upgrade.
	Fleet
	// Diff is the policy of diff.
	Diff
)

// Size sizes the collector for envs environments, evaluated in batches
// or whole.
func (p Policy) Size(envs int, batched bool) {
	if p == None || userTuned() {
		return
	}
	if p == Diff {
		sizeDiff(envs)
		return
	}
	debug.SetMemoryLimit(Limit(envs, batched))
}

// Limit is the soft memory limit of a render of envs environments. A
// package evaluated in batches keeps only two batches' values live, so
// past batchedCap its heap grows into the limit page by page without
// need: its limit stops there.
func Limit(envs int, batched bool) int64 {
	if batched {
		return min(fleetLimit(envs), batchedCap)
	}
	return fleetLimit(envs)
}

// sizeDiff is Fleet for diff, which writes nothing and keeps one side's
// bundles while it renders the other, so what is live is about twice a
// render's: its limit grows by 90 KiB per environment from 768 MiB, and
// the heap may grow three times what is live between collections (a
// diff of 1,000 environments, one run each on a noisy machine: 5.2 s
// and 210 MiB at GOGC=100, 4.4 s and 310 MiB at 200, 3.6 s and 450 MiB
// at 400; at 300, 3.3 to 4.5 s and 380 MiB).
func sizeDiff(envs int) {
	const perEnvironment, floor = 90 << 10, 768 << 20
	if envs >= 300 {
		debug.SetGCPercent(300)
		debug.SetMemoryLimit(max(floor, int64(envs)*perEnvironment))
	}
}
