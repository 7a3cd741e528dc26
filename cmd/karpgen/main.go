// Command karpgen renders Karpenter bundles (Helm values, NodePools,
// EC2NodeClasses and IAM) from CUE cluster profiles.
package main

import (
	"os"

	"github.com/karpgen/karpgen/internal/util/gcpolicy"
	_ "github.com/karpgen/karpgen/internal/util/prefault"
)

func main() {
	gcpolicy.Start()
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}
