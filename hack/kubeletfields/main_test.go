package main

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/karpgen/karpgen/hack/internal/gosrctest"
	"github.com/karpgen/karpgen/internal/facts"
	"github.com/karpgen/karpgen/internal/oracle"
)

// TestFieldsMatchSource: internal/facts/kubelet/data is what this command makes
// of the k8s.io/kubelet zip its SOURCE names, byte for byte, and that is
// the version Karpenter's newest reference release builds against.
// `make test` fetches the zip from the module proxy.
func TestFieldsMatchSource(t *testing.T) {
	_, version := gosrctest.HoldToZip(t, "internal/facts/kubelet/data", "kubeletfields", Fields)
	newest := facts.Newest()
	gomod, err := os.ReadFile(filepath.Join(oracle.Dir(t), newest.Reference, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`(?m)^\s+k8s\.io/kubelet ` + regexp.QuoteMeta(version) + `$`).Match(gomod) {
		t.Errorf("Karpenter %s does not build against k8s.io/kubelet %s", newest.Reference, version)
	}
}
