// Command kubeletfields writes internal/kubelet/data/fields.tsv: every
// field of the upstream KubeletConfiguration (k8s.io/kubelet's
// config/v1beta1) the EC2NodeClass's open kubelet map takes from Karpenter
// 1.15 on, with the JSON type Karpenter's strict decode holds it to. It
// reads the Go source as data, never builds it.
//
//	go run ./hack/kubeletfields SOURCE LABEL
//
// SOURCE is the k8s.io/kubelet module zip (the version Karpenter's go.mod
// requires) or its source tree. TestFieldsMatchSource holds the file to
// the zip.
package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/karpgen/karpgen/hack/internal/gosrc"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: go run ./hack/kubeletfields SOURCE LABEL")
		os.Exit(2)
	}
	src, closeSrc, err := gosrc.Open(os.Args[1])
	if err != nil {
		fail(err)
	}
	defer closeSrc()
	files, err := Fields(src, os.Args[2])
	if err != nil {
		fail(err)
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join("internal", "kubelet", "data", name), data, 0o644); err != nil {
			fail(err)
		}
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "kubeletfields:", err)
	os.Exit(1)
}
