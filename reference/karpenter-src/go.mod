// Upstream Go files kept as reference data, not code of this module: this
// go.mod keeps them out of ./... (go build, vet, test and mod tidy).
module karpgen.invalid/reference/karpenter-src

go 1.26
