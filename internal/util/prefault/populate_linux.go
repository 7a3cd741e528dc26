package prefault

import (
	"bytes"
	"os"
	"strconv"
	"syscall"
)

// madvPopulateRead is MADV_POPULATE_READ: fault the range in, readable,
// as a read of each page would.
const madvPopulateRead = 22

// populate asks the kernel to map the executable's read-only mappings
// (its code and read-only data) in full.
func populate() {
	exe, err := os.Readlink("/proc/self/exe")
	if err != nil {
		return
	}
	maps, err := os.ReadFile("/proc/self/maps")
	if err != nil {
		return
	}
	for _, r := range readOnly(maps, exe) {
		// An older kernel refuses the advice (EINVAL): the pages then
		// fault in one by one, as without this package.
		syscall.Syscall(syscall.SYS_MADVISE, r[0], r[1]-r[0], madvPopulateRead)
	}
}

// readOnly is the address ranges [start, end) of the mappings of the file
// exe that are not writable, from /proc/self/maps.
func readOnly(maps []byte, exe string) [][2]uintptr {
	var out [][2]uintptr
	for line := range bytes.SplitSeq(maps, []byte("\n")) {
		// address perms offset dev inode path
		f := bytes.Fields(line)
		if len(f) < 6 || !bytes.HasSuffix(line, []byte(" "+exe)) || len(f[1]) < 2 || f[1][1] != '-' {
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
		out = append(out, [2]uintptr{uintptr(start), uintptr(end)})
	}
	return out
}
