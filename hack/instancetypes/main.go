// Command instancetypes writes internal/facts/instancetypes/data from a
// Karpenter release's generated tables: the instance types with their
// network interfaces (pkg/providers/instancetype/zz_generated.vpclimits.go)
// and the on-demand prices of one region per partition
// (pkg/providers/pricing/zz_generated.pricing_*.go). It reads the Go
// source as data (the composite literals), never builds it.
//
//	go generate ./internal/facts/instancetypes
//
// It reads the module zip data/SOURCE records (the newest release's; to
// move to another, write its module, version and zip hash there) and
// keeps the folder when the zip is not at hand. TestTableMatchesSource
// holds the files to the zip.
package main

import "github.com/karpgen/karpgen/hack/internal/gosrc"

func main() {
	src, label, ok := gosrc.FromRecord("instancetypes", "internal/facts/instancetypes/data", []string{"pkg/providers/instancetype/", "pkg/providers/pricing/"})
	if !ok {
		return
	}
	files, err := Tables(src, label)
	gosrc.WriteAll("instancetypes", "internal/facts/instancetypes/data", files, err)
}
