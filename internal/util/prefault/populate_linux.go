package prefault

import (
	"bytes"
	"os"
	"strconv"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"
)

// The advice: fault the range in as a read (or a write) of each page
// would, without changing what it holds.
const (
	madvPopulateRead  = 22
	madvPopulateWrite = 23
)

// The heap grows upward in whole chunks of 4 MiB (the runtime's
// pallocChunkBytes), each mapped when the allocator first needs a page of
// it. follow maps each in as it appears, up to followChunks of them;
// it looks again after a wait that doubles from minWait to maxWait while
// the heap stays as it is, and stops once it has stayed so for idleFor.
const (
	heapChunk    = 4 << 20
	followChunks = 64
	minWait      = 20 * time.Microsecond
	maxWait      = 2 * time.Millisecond
	idleFor      = time.Second
)

// populate asks the kernel to map in full the executable's read-only
// mappings (its code and read-only data) and the heap's mapping, then
// each chunk the heap adds, the memory the next allocations take.
func populate() {
	exe, err := os.Readlink("/proc/self/exe")
	if err != nil {
		return
	}
	maps, err := os.ReadFile("/proc/self/maps")
	if err != nil {
		return
	}
	ms := parse(maps)
	// An older kernel refuses the advice (EINVAL): the pages then fault
	// in one by one, as without this package.
	for _, m := range ms {
		if m.path == exe && !m.writable {
			madvise(m.start, m.end, madvPopulateRead)
		}
	}
	// Where a new object lies is the heap's mapping.
	p := new([64]byte)
	probe.Store(p)
	heap, ok := containing(ms, uintptr(unsafe.Pointer(p)))
	probe.Store(nil)
	if ok && heap.writable && heap.path == "" && madvise(heap.start, heap.end, madvPopulateWrite) {
		follow(heap.end, followChunks)
	}
}

// follow maps in each chunk the heap adds from next on, up to chunks of
// them. Until the runtime maps a chunk, its range is reserved without
// access, or not mapped, and the advice fails at once (EINVAL, ENOMEM):
// it is then tried again later. A chunk is mapped whole as soon as the
// runtime maps it, so at most one chunk's worth of pages is resident
// before it is used.
func follow(next uintptr, chunks int) {
	wait, idle := minWait, time.Duration(0)
	for n := 0; n < chunks && idle < idleFor; {
		if madvise(next, next+heapChunk, madvPopulateWrite) {
			next += heapChunk
			n++
			wait, idle = minWait, 0
			continue
		}
		time.Sleep(wait)
		idle += wait
		wait = min(2*wait, maxWait)
	}
}

// probe holds an object for a moment, so that the object is on the heap.
var probe atomic.Pointer[[64]byte]

// madvise gives the advice for [start, end) and says whether the kernel
// took it.
func madvise(start, end, advice uintptr) bool {
	_, _, errno := syscall.Syscall(syscall.SYS_MADVISE, start, end-start, advice)
	return errno == 0
}

// mapping is a line of /proc/self/maps.
type mapping struct {
	start, end uintptr
	writable   bool
	// path is the file mapped, "" for anonymous memory.
	path string
}

// parse reads /proc/self/maps: "start-end perms offset dev inode [path]".
func parse(maps []byte) []mapping {
	var out []mapping
	for line := range bytes.SplitSeq(maps, []byte("\n")) {
		f := bytes.Fields(line)
		if len(f) < 5 || len(f[1]) < 2 {
			continue
		}
		lo, hi, ok := bytes.Cut(f[0], []byte("-"))
		if !ok {
			continue
		}
		start, err1 := strconv.ParseUint(string(lo), 16, 64)
		end, err2 := strconv.ParseUint(string(hi), 16, 64)
		if err1 != nil || err2 != nil || end <= start {
			continue
		}
		m := mapping{start: uintptr(start), end: uintptr(end), writable: f[1][1] == 'w'}
		if len(f) > 5 {
			// The path is the rest of the line and may hold spaces.
			m.path = string(line[bytes.Index(line, f[5]):])
		}
		out = append(out, m)
	}
	return out
}

// containing is the mapping that holds addr.
func containing(ms []mapping, addr uintptr) (mapping, bool) {
	for _, m := range ms {
		if m.start <= addr && addr < m.end {
			return m, true
		}
	}
	return mapping{}, false
}
