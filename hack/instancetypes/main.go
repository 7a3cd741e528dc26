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
	"path/filepath"

	"github.com/karpgen/karpgen/hack/internal/gosrc"
)

func main() {
	src, label, closeSrc := gosrc.Args("instancetypes")
	defer closeSrc()
	files, err := Tables(src, label)
	gosrc.Write("instancetypes", filepath.Join("internal", "instancetypes", "data"), files, err)
}
