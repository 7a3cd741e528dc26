// Command karpgen renders Karpenter bundles (Helm values, NodePools,
// EC2NodeClasses and IAM) from CUE cluster profiles.
package main

import "os"

func main() {
	tuneGC()
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}
