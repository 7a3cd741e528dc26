// Command drifttable writes internal/drift/data/table.tsv: for every
// reference release, which NodePool and EC2NodeClass fields enter the hash
// Karpenter's static drift check compares (and which are tagged
// hash:"ignore"), the hash versions, the drift reasons the controller
// reports, and the CRDs' transition rules (those that name oldSelf), which
// decide what the API server refuses to change in place. It reads upstream's
// Go source as data (go/parser), never builds it.
//
//	go run ./hack/drifttable [REFERENCE_ROOT]
//
// REFERENCE_ROOT (default: reference) holds karpenter-src/<release>/, which
// hack/refresh-karpenter-src.sh fills, and karpenter/<release>/crds/.
// TestTableMatchesReference holds the file to them.
package main

import (
	"fmt"
	"os"
	"path/filepath"
)

func main() {
	root := "reference"
	if len(os.Args) > 1 {
		root = os.Args[1]
	}
	table, err := Table(os.DirFS(root))
	if err != nil {
		fmt.Fprintln(os.Stderr, "drifttable:", err)
		os.Exit(1)
	}
	out := filepath.Join("internal", "drift", "data", "table.tsv")
	if err := os.WriteFile(out, table, 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "drifttable:", err)
		os.Exit(1)
	}
}
