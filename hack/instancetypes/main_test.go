package main

import (
	"testing"

	"github.com/karpgen/karpgen/hack/internal/gosrctest"
)

// TestTableMatchesSource: internal/facts/instancetypes/data is what this
// command makes of the module zip its SOURCE names, byte for byte.
// `make test` fetches the zip from the module proxy.
func TestTableMatchesSource(t *testing.T) {
	gosrctest.HoldToZip(t, "internal/facts/instancetypes/data", "instancetypes", Tables)
}
