package safefs

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// TestReadFile: a regular file is read whole whatever its size, and one
// larger than the bound is refused with its size.
func TestReadFile(t *testing.T) {
	dir := t.TempDir()
	for _, size := range []int{0, 1, 511, 512, 4096, 100_000} {
		want := bytes.Repeat([]byte("karpgen\n"), size/8+1)[:size]
		p := filepath.Join(dir, strconv.Itoa(size))
		if err := os.WriteFile(p, want, 0o644); err != nil {
			t.Fatal(err)
		}
		got, err := ReadFile(p, 100_000)
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%d bytes: read %d bytes, %v", size, len(got), err)
		}
		got, err = ReadFS(os.DirFS(dir), strconv.Itoa(size), 100_000)
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%d bytes through a file system: read %d bytes, %v", size, len(got), err)
		}
	}
	_, err := ReadFile(filepath.Join(dir, "4096"), 4095)
	var tooBig *SizeError
	if !errors.As(err, &tooBig) || tooBig.Size != 4096 || tooBig.Max != 4095 {
		t.Errorf("a file over the bound: %v", err)
	}
}
