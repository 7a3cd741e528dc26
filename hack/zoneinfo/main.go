// Command zoneinfo writes internal/budget/data/zoneinfo.zip, the IANA
// time-zone database karpgen reads budgets' time zones from, and its
// SOURCE: the copy Go distributes ($GOROOT/lib/time/zoneinfo.zip), with
// the tzdata release it was made from.
//
//	go generate ./internal/budget
//
// The database is karpgen's own, not the machine's nor the Go
// toolchain's: a rendered schedule must not change with the machine that
// renders it. Under $KARPGEN_GENERATE_CHECK=1 the files are held to the
// toolchain's copy only when the toolchain carries the same tzdata
// release; a toolchain with another release keeps them (moving to a new
// release is a deliberate `go generate`).
package main

import (
	"crypto/sha256"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"

	"github.com/karpgen/karpgen/hack/internal/gosrc"
)

var dataRE = regexp.MustCompile(`(?m)^DATA=(\S+)$`)

func main() {
	files, err := generate()
	if err == errOtherRelease {
		return
	}
	gosrc.WriteAll("zoneinfo", "internal/budget/data", files, err)
}

var errOtherRelease = fmt.Errorf("another tzdata release")

func generate() (map[string][]byte, error) {
	goroot, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		return nil, fmt.Errorf("go env GOROOT: %w", err)
	}
	dir := filepath.Join(strings.TrimSpace(string(goroot)), "lib", "time")
	zip, err := os.ReadFile(filepath.Join(dir, "zoneinfo.zip"))
	if err != nil {
		return nil, err
	}
	script, err := os.ReadFile(filepath.Join(dir, "update.bash"))
	if err != nil {
		return nil, err
	}
	m := dataRE.FindSubmatch(script)
	if m == nil {
		return nil, fmt.Errorf("%s names no DATA= release", filepath.Join(dir, "update.bash"))
	}
	release := string(m[1])
	source := fmt.Sprintf("# zoneinfo.zip is the IANA time zone database (public domain), release %s,\n"+
		"# as Go distributes it in lib/time/zoneinfo.zip (%s).\n"+
		"# go generate ./internal/budget writes it from the toolchain's copy (hack/zoneinfo).\n"+
		"release\t%s\nsha256\t%x\n", release, runtime.Version(), release, sha256.Sum256(zip))
	if os.Getenv(gosrc.CheckEnv) == "1" {
		root, err := gosrc.Root()
		if err != nil {
			return nil, err
		}
		have, err := os.ReadFile(filepath.Join(root, "internal", "budget", "data", "SOURCE"))
		if err == nil && !regexp.MustCompile(`(?m)^release\t`+regexp.QuoteMeta(release)+`$`).Match(have) {
			fmt.Fprintf(os.Stderr, "zoneinfo: kept internal/budget/data: %s carries tzdata %s\n", runtime.Version(), release)
			return nil, errOtherRelease
		}
		// The same release: the Go version in the header may differ.
		source = string(regexp.MustCompile(`\(go[^)]*\)`).ReplaceAll([]byte(source), regexp.MustCompile(`\(go[^)]*\)`).Find(have)))
	}
	return map[string][]byte{"zoneinfo.zip": zip, "SOURCE": []byte(source)}, nil
}
