package prefault

import (
	"os"
	"reflect"
	"testing"
)

func TestReadOnly(t *testing.T) {
	maps := []byte(`00400000-01241000 r-xp 00000000 fe:00 10862662                           /opt/karp gen/karpgen
01241000-021d2000 r--p 00e41000 fe:00 10862662                           /opt/karp gen/karpgen
021d2000-0255b000 rw-p 01dd2000 fe:00 10862662                           /opt/karp gen/karpgen
0255b000-045a6000 rw-p 00000000 00:00 0 
3b53cbc00000-3b53cc000000 rw-p 00000000 00:00 0 
7f0000000000-7f0000001000 r--p 00000000 fe:00 1                          /opt/karp gen/karpgen.old
7f0000001000-7f0000002000 r--p 00000000 fe:00 1                          /other/opt/karp gen/karpgen (deleted)
7ffe9cd21000-7ffe9cd42000 rw-p 00000000 00:00 0                          [stack]
zzzz-0001 r--p 00000000 fe:00 1                          /opt/karp gen/karpgen
`)
	got := readOnly(maps, "/opt/karp gen/karpgen")
	want := [][2]uintptr{{0x400000, 0x1241000}, {0x1241000, 0x21d2000}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("readOnly = %#x, want %#x", got, want)
	}
}

// TestOwnMappings reads the test binary's own maps: its code is found.
func TestOwnMappings(t *testing.T) {
	exe, err := os.Readlink("/proc/self/exe")
	if err != nil {
		t.Fatal(err)
	}
	maps, err := os.ReadFile("/proc/self/maps")
	if err != nil {
		t.Fatal(err)
	}
	ranges := readOnly(maps, exe)
	if len(ranges) == 0 {
		t.Fatalf("no read-only mapping of %s in\n%s", exe, maps)
	}
	populate() // must not fail or crash on the real mappings
}
