package oracle_test

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/karpgen/karpgen/internal/oracle"
)

// TestReferenceChecksums: the upstream artifacts are exactly those the
// SOURCE file lists, byte for byte (hack/refresh-reference.sh writes both).
func TestReferenceChecksums(t *testing.T) {
	dir := oracle.Dir(t)
	data, err := os.ReadFile(filepath.Join(dir, "SOURCE"))
	if err != nil {
		t.Fatal(err)
	}
	listed := map[string]string{}
	sums := false
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := sc.Text()
		if line == "# sha256" {
			sums = true
			continue
		}
		if !sums || strings.HasPrefix(line, "#") {
			continue
		}
		sum, name, ok := strings.Cut(line, "  ")
		if !ok {
			t.Fatalf("SOURCE: malformed line %q", line)
		}
		listed[name] = sum
	}
	if len(listed) == 0 {
		t.Fatal("SOURCE lists no checksums")
	}
	found := 0
	err = filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		rel = filepath.ToSlash(rel)
		if rel == "SOURCE" {
			return nil
		}
		found++
		content, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(content)
		switch want, ok := listed[rel]; {
		case !ok:
			t.Errorf("%s is not listed in SOURCE", rel)
		case want != hex.EncodeToString(sum[:]):
			t.Errorf("%s differs from the upstream artifact SOURCE lists", rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if found != len(listed) {
		t.Errorf("SOURCE lists %d files, the folder holds %d", len(listed), found)
	}
}

// maxTracked is the size past which a tracked file outside the reference
// data is refused.
const maxTracked = 5 << 20

// TestTreeHygiene: no tracked file is an executable binary, and none
// outside reference/ is larger than 5 MiB.
func TestTreeHygiene(t *testing.T) {
	root := oracle.Root()
	out, err := exec.Command("git", "-C", root, "ls-files", "-z").Output()
	if err != nil {
		oracle.Missing(t, "git ls-files: %v", err)
	}
	for _, name := range strings.Split(strings.TrimRight(string(out), "\x00"), "\x00") {
		path := filepath.Join(root, name)
		info, err := os.Stat(path)
		if err != nil {
			continue // deleted in the work tree
		}
		if info.Size() > maxTracked && !strings.HasPrefix(name, "reference/") {
			t.Errorf("%s is %d bytes; keep files over 5 MiB out of the repository", name, info.Size())
		}
		head := make([]byte, 4)
		if f, err := os.Open(path); err == nil {
			n, _ := f.Read(head)
			f.Close()
			if n == 4 && (bytes.Equal(head, []byte("\x7fELF")) || bytes.Equal(head[:2], []byte("MZ")) ||
				bytes.Equal(head, []byte{0xcf, 0xfa, 0xed, 0xfe})) {
				t.Errorf("%s is an executable binary; build it, do not commit it", name)
			}
		}
	}
}
