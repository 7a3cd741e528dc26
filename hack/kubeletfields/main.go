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
	"path/filepath"

	"github.com/karpgen/karpgen/hack/internal/gosrc"
)

func main() {
	src, label, closeSrc := gosrc.Args("kubeletfields")
	defer closeSrc()
	files, err := Fields(src, label)
	gosrc.Write("kubeletfields", filepath.Join("internal", "kubelet", "data"), files, err)
}
