package prefault

import (
	"bytes"
	"os"
	"strconv"
	"sync/atomic"
	"syscall"
	"unsafe"
)

// The advice: fault the range in as a read (or a write) of each page
// would, without changing what it holds.
const (
	madvPopulateRead  = 22
	madvPopulateWrite = 23
)

// heapAhead bounds how much of the heap's mapping is populated: about
// what a command of one environment allocates.
const heapAhead = 8 << 20

// populate asks the kernel to map in full the executable's read-only
// mappings (its code and read-only data), and the start of the heap's
// mapping, the memory the next allocations take.
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
	if ok && heap.writable && heap.path == "" {
		madvise(heap.start, min(heap.end, heap.start+heapAhead), madvPopulateWrite)
	}
}

// probe holds an object for a moment, so that the object is on the heap.
var probe atomic.Pointer[[64]byte]

func madvise(start, end, advice uintptr) {
	syscall.Syscall(syscall.SYS_MADVISE, start, end-start, advice)
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
