// Command instancetypes writes internal/instancetypes/data from a
// Karpenter release's generated tables: the instance types with their
// network interfaces (pkg/providers/instancetype/zz_generated.vpclimits.go)
// and the on-demand prices of one region per partition
// (pkg/providers/pricing/zz_generated.pricing_*.go). It reads the Go
// source as data (the composite literals), never builds it.
//
//	go run ./hack/instancetypes SOURCE LABEL
//
// SOURCE is the release's module zip or source tree; LABEL says where it
// came from, for data/SOURCE. TestTableMatchesSource holds the files to
// the module zip.
package main

import (
	"fmt"

	"os"
	"path/filepath"

	"github.com/karpgen/karpgen/hack/internal/gosrc"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: go run ./hack/instancetypes SOURCE LABEL")
		os.Exit(2)
	}
	src, closeSrc, err := gosrc.Open(os.Args[1])
	if err != nil {
		fail(err)
	}
	defer closeSrc()
	files, err := Tables(src, os.Args[2])
	if err != nil {
		fail(err)
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join("internal", "instancetypes", "data", name), data, 0o644); err != nil {
			fail(err)
		}
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "instancetypes:", err)
	os.Exit(1)
}
