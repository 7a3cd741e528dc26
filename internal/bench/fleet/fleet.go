// Package fleet writes synthetic profiles folders of many environments,
// for benchmarks and the side-by-side timing script.
package fleet

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// base is a workload-separated environment like the repository's own.
const base = `package profiles

_base: {
	cluster: {
		region:            "ap-northeast-2"
		accountID:         "491085395789"
		kubernetesVersion: "1.32"
	}
	karpenter: {
		version:   "1.2.3"
		namespace: "karpenter"
		controller: nodeGroup: "addon"
	}
	nodeGroups: {
		system: labels: nodegroup: "system"
		addon: {
			labels: nodegroup: "addon"
			taints: [{key: "node-role.kubernetes.io/addon", effect: "NoSchedule"}]
		}
	}
	nodeClasses: default: {
		ami: alias: "al2023@latest"
		blockDevices: [{deviceName: "/dev/xvda", volumeSize: "100Gi", volumeType: "gp3"}]
	}
	nodePools: app: {
		labels: nodegroup: "app"
		taints: [{key: "nodegroup", value: "app", effect: "NoSchedule"}]
		instanceFamilies: ["m5", "m5d", "c5", "c5d"]
		instanceCPU: [4, 8, 16, 32]
		zones: ["ap-northeast-2a", "ap-northeast-2c"]
		limits: {cpu: 40, memory: "160Gi"}
		disruption: {consolidationPolicy: "WhenEmpty", consolidateAfter: "90s"}
	}
}
`

// Write creates dir/base.cue and dir/environments.cue with n environments
// env-0000 ... that differ in cluster name and capacity types.
func Write(dir string, n int) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "base.cue"), []byte(base), 0o644); err != nil {
		return err
	}
	var b strings.Builder
	b.WriteString("package profiles\n\nenvironments: {\n")
	for i := 0; i < n; i++ {
		capacity := `["on-demand"]`
		if i%2 == 0 {
			capacity = `["spot", "on-demand"]`
		}
		fmt.Fprintf(&b, "\t%q: _base & {\n\t\tcluster: name: \"ws-%04d\"\n\t\tnodePools: app: capacityTypes: %s\n\t}\n", fmt.Sprintf("env-%04d", i), i, capacity)
	}
	b.WriteString("}\n")
	return os.WriteFile(filepath.Join(dir, "environments.cue"), []byte(b.String()), 0o644)
}

// ChangeBase makes the shared base of a folder Write made what it was
// before one change that reaches every environment: an older AMI
// release. karpgen diff of the Write folder against this one finds every
// environment's nodes replaced.
func ChangeBase(dir string) error {
	path := filepath.Join(dir, "base.cue")
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	const from, to = `alias: "al2023@latest"`, `alias: "al2023@v20250201"`
	if !strings.Contains(string(data), from) {
		return fmt.Errorf("%s has no %s", path, from)
	}
	return os.WriteFile(path, []byte(strings.Replace(string(data), from, to, 1)), 0o644)
}
