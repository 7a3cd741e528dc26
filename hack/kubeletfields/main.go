// Command kubeletfields writes internal/facts/kubelet/data/fields.tsv: every
// field of the upstream KubeletConfiguration (k8s.io/kubelet's
// config/v1beta1) the EC2NodeClass's open kubelet map takes from Karpenter
// 1.15 on, with the JSON type Karpenter's strict decode holds it to. It
// reads the Go source as data, never builds it.
//
//	go generate ./internal/facts/kubelet
//
// It reads the k8s.io/kubelet module zip data/SOURCE records (the version
// the newest release's go.mod requires) and keeps the file when the zip
// is not at hand. TestFieldsMatchSource holds the file to the zip.
package main

import "github.com/karpgen/karpgen/hack/internal/gosrc"

func main() {
	src, label, ok := gosrc.FromRecord("kubeletfields", "internal/facts/kubelet/data", []string{"config/v1beta1/"})
	if !ok {
		return
	}
	files, err := Fields(src, label)
	gosrc.WriteAll("kubeletfields", "internal/facts/kubelet/data", files, err)
}
