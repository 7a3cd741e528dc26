package prefault

import (
	"os"
	"reflect"
	"syscall"
	"testing"
	"time"
	"unsafe"
)

func TestParse(t *testing.T) {
	maps := []byte(`00400000-01241000 r-xp 00000000 fe:00 10862662                           /opt/karp gen/karpgen
021d2000-0255b000 rw-p 01dd2000 fe:00 10862662                           /opt/karp gen/karpgen
0255b000-045a6000 rw-p 00000000 00:00 0 
7f0000001000-7f0000002000 r--p 00000000 fe:00 1                          /opt/karpgen (deleted)
zzzz-0001 r--p 00000000 fe:00 1                          /opt/karpgen
7ffe9cd21000-7ffe9cd42000 rw-p 00000000 00:00 0                          [stack]
`)
	want := []mapping{
		{start: 0x400000, end: 0x1241000, path: "/opt/karp gen/karpgen"},
		{start: 0x21d2000, end: 0x255b000, writable: true, path: "/opt/karp gen/karpgen"},
		{start: 0x255b000, end: 0x45a6000, writable: true},
		{start: 0x7f0000001000, end: 0x7f0000002000, path: "/opt/karpgen (deleted)"},
		{start: 0x7ffe9cd21000, end: 0x7ffe9cd42000, writable: true, path: "[stack]"},
	}
	got := parse(maps)
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("parse =\n%+v\nwant\n%+v", got, want)
	}
	if m, ok := containing(got, 0x300_0000); !ok || m != want[2] {
		t.Errorf("containing(0x3000000) = %+v, %v", m, ok)
	}
	if _, ok := containing(got, 0x45a6000); ok {
		t.Error("the end of a mapping is taken to be in it")
	}
}

// TestOwnMappings reads the test binary's own maps: its code is a
// read-only mapping of the executable, and a new object lies in an
// anonymous writable one, which populate then advises.
func TestOwnMappings(t *testing.T) {
	exe, err := os.Readlink("/proc/self/exe")
	if err != nil {
		t.Fatal(err)
	}
	maps, err := os.ReadFile("/proc/self/maps")
	if err != nil {
		t.Fatal(err)
	}
	ms := parse(maps)
	code := false
	for _, m := range ms {
		code = code || m.path == exe && !m.writable
	}
	if !code {
		t.Errorf("no read-only mapping of %s in\n%s", exe, maps)
	}
	obj := new([64]byte)
	probe.Store(obj) // on the heap
	defer probe.Store(nil)
	if m, ok := containing(ms, uintptr(unsafe.Pointer(obj))); !ok || !m.writable || m.path != "" {
		t.Errorf("a heap object lies in %+v (found %v), not anonymous writable memory", m, ok)
	}
	obj[0] = 1
	populate()
	if obj[0] != 1 {
		t.Error("populate changed the heap")
	}
}

// TestFollowMapsEachChunkAsItAppears reserves two chunks without access,
// as the runtime reserves its heap, and opens them one at a time: each is
// mapped in, whole, once it may be written, and not before.
func TestFollowMapsEachChunkAsItAppears(t *testing.T) {
	region, err := syscall.Mmap(-1, 0, 2*heapChunk, syscall.PROT_NONE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Munmap(region)
	start := uintptr(unsafe.Pointer(&region[0]))
	done := make(chan struct{})
	go func() {
		follow(start, 2)
		close(done)
	}()
	for i := range 2 {
		chunk := region[i*heapChunk : (i+1)*heapChunk]
		time.Sleep(10 * time.Millisecond)
		if n := resident(t, chunk); n != 0 {
			t.Fatalf("chunk %d: %d pages resident before it may be written", i, n)
		}
		if err := syscall.Mprotect(chunk, syscall.PROT_READ|syscall.PROT_WRITE); err != nil {
			t.Fatal(err)
		}
	}
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("follow did not map both chunks within 10s")
	}
	pages := 2 * heapChunk / os.Getpagesize()
	if n := resident(t, region); n != pages {
		t.Errorf("%d of %d pages resident after follow", n, pages)
	}
	for i, b := range region {
		if b != 0 {
			t.Fatalf("byte %d is %d, not zero", i, b)
		}
	}
}

// resident counts the pages of b the process has mapped in.
func resident(t *testing.T, b []byte) int {
	vec := make([]byte, (len(b)+os.Getpagesize()-1)/os.Getpagesize())
	_, _, errno := syscall.Syscall(syscall.SYS_MINCORE, uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)), uintptr(unsafe.Pointer(&vec[0])))
	if errno != 0 {
		t.Fatalf("mincore: %v", errno)
	}
	n := 0
	for _, v := range vec {
		n += int(v & 1)
	}
	return n
}
