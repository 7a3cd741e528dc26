// Command drifttable writes internal/facts/drift/data/table.tsv: for every
// reference release, which NodePool and EC2NodeClass fields enter the hash
// Karpenter's static drift check compares (and which are tagged
// hash:"ignore"), the hash versions, the drift reasons the controller
// reports, and the CRDs' transition rules (those that name oldSelf), which
// decide what the API server refuses to change in place. It reads upstream's
// Go source as data (go/parser), never builds it.
//
//	go generate ./internal/facts/drift
//
// internal/facts/drift/data/SOURCE names, per release, the core and the provider
// tree: each is read from the module proxy's zip when the record has its
// hash, else from its commit in a checkout under $KARPGEN_UPSTREAM. The
// rows of a tree at hand neither way are kept as committed, and the
// command says which.
package main

import (
	"fmt"
	"os"
)

func main() {
	if err := generate(os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "drifttable:", err)
		os.Exit(1)
	}
}
