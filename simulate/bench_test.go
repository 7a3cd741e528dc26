package simulate_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/karpgen/karpgen/generators"
	"github.com/karpgen/karpgen/internal/action"
	"github.com/karpgen/karpgen/internal/model"
	"github.com/karpgen/karpgen/internal/simulate"
	"github.com/karpgen/karpgen/simulate/internal/sched"
)

// BenchmarkSchedule1000Pods10Pools times a simulation of 1,000 pods
// against an environment of 10 pools, in the shape of upstream's own
// scheduling benchmark (makeDiversePods: a fifth each of plain pods,
// zonal and hostname topology spread, zonal pod affinity and hostname
// anti-affinity), every instance type the tables know offered to each
// pool's node class, until the cluster settles.
func BenchmarkSchedule1000Pods10Pools(b *testing.B) { benchSettle(b, diverse(200)) }

// BenchmarkSettle10000Pods10Pools is the same with 10,000 pods: 2,000 of
// them keep a node each by hostname anti-affinity, and upstream tries
// each pod against every node it is launching.
func BenchmarkSettle10000Pods10Pools(b *testing.B) { benchSettle(b, diverse(2000)) }

// BenchmarkSettle10000PlainPods10Pools places 10,000 pods without
// topology constraints: five Deployments of 2,000, of five sizes.
func BenchmarkSettle10000PlainPods10Pools(b *testing.B) { benchSettle(b, plain(2000)) }

// benchSettle places the workloads.
func benchSettle(b *testing.B, workloads string) {
	req := benchRequest(b, workloads)
	pods, nodes, rounds := 0, 0, 0
	for b.Loop() {
		resp, err := sched.Run(req)
		must(b, err)
		pods, nodes, rounds = 0, len(resp.Nodes), resp.Rounds
		for _, w := range resp.Workloads {
			if len(w.Pending) > 0 {
				b.Fatalf("%s/%s: pods Pending: %v", w.Namespace, w.Name, w.Pending)
			}
			for _, n := range w.Nodes {
				pods += n
			}
		}
	}
	b.ReportMetric(float64(pods), "pods")
	b.ReportMetric(float64(nodes), "nodes")
	b.ReportMetric(float64(rounds), "rounds")
}

// benchRequest is the request of the benchmarks' environment, ten pools
// of ten families, for the workloads.
func benchRequest(b testing.TB, workloads string) *simulate.Request {
	dir := b.TempDir()
	profiles := filepath.Join(dir, "profiles")
	must(b, os.MkdirAll(profiles, 0o755))
	base, err := os.ReadFile(filepath.Join("..", "cmd", "karpgen", "testdata", "common", "base.cue"))
	must(b, err)
	must(b, os.WriteFile(filepath.Join(profiles, "base.cue"), base, 0o644))
	var env strings.Builder
	env.WriteString("package profiles\n\nenvironments: dev: _base & {\n")
	families := [][]string{{"m5", "m5d"}, {"c5", "c5d"}, {"r5", "r5d"}, {"m6i", "m6id"}, {"c6i", "c6id"}, {"r6i", "r6id"}, {"m7i"}, {"c7i"}, {"r7i"}, {"m6a", "c6a"}}
	for i, f := range families {
		name := fmt.Sprintf("pool%d", i)
		if i == 0 {
			name = "app"
		}
		fmt.Fprintf(&env, "\tnodePools: %s: {nodeClass: \"default\", labels: nodegroup: \"app\", taints: [{key: \"nodegroup\", value: \"app\", effect: \"NoSchedule\"}], instanceFamilies: [\"%s\"], instanceCPU: [4, 8, 16, 32], zones: [\"ap-northeast-2a\", \"ap-northeast-2c\"], limits: {cpu: 100000, memory: \"400000Gi\"}}\n",
			name, strings.Join(f, `", "`))
	}
	env.WriteString("}\n")
	must(b, os.WriteFile(filepath.Join(profiles, "env.cue"), []byte(env.String()), 0o644))
	res, err := action.Check(action.Options{Dir: profiles})
	if err != nil || len(res.Envs) != 1 {
		b.Fatalf("the benchmark's profile: %v %v", err, res.Findings)
	}
	e := res.Envs[0]
	bundle, err := generators.Render(e)
	must(b, err)
	must(b, os.WriteFile(filepath.Join(dir, "workloads.yaml"), []byte(workloads), 0o644))
	ws, err := action.ReadWorkloads(context.Background(), []string{filepath.Join(dir, "workloads.yaml")})
	must(b, err)
	req, err := simulate.NewRequest(e, bundle.Files[model.FileNodePools], ws, simulate.TablePrices(e.Profile.Cluster.Region))
	must(b, err)
	return req
}

// diverse are five Deployments of n pods each, in upstream's benchmark
// shape.
func diverse(n int) string {
	var b strings.Builder
	for _, w := range []struct{ name, spec string }{
		{"generic", ""},
		{"spread-zone", "      topologySpreadConstraints: [{maxSkew: 1, topologyKey: topology.kubernetes.io/zone, whenUnsatisfiable: DoNotSchedule, labelSelector: {matchLabels: {app: spread-zone}}}]\n"},
		{"spread-host", "      topologySpreadConstraints: [{maxSkew: 1, topologyKey: kubernetes.io/hostname, whenUnsatisfiable: DoNotSchedule, labelSelector: {matchLabels: {app: spread-host}}}]\n"},
		{"affinity-zone", "      affinity: {podAffinity: {requiredDuringSchedulingIgnoredDuringExecution: [{topologyKey: topology.kubernetes.io/zone, labelSelector: {matchLabels: {app: affinity-zone}}}]}}\n"},
		{"anti-affinity-host", "      affinity: {podAntiAffinity: {requiredDuringSchedulingIgnoredDuringExecution: [{topologyKey: kubernetes.io/hostname, labelSelector: {matchLabels: {app: anti-affinity-host}}}]}}\n"},
	} {
		fmt.Fprintf(&b, `---
apiVersion: apps/v1
kind: Deployment
metadata: {name: %[1]s, namespace: bench}
spec:
  replicas: %[2]d
  selector: {matchLabels: {app: %[1]s}}
  template:
    metadata: {labels: {app: %[1]s}}
    spec:
      tolerations: [{key: nodegroup, value: app, effect: NoSchedule}]
%[3]s      containers:
        - {name: app, image: app, resources: {requests: {cpu: 250m, memory: 512Mi}}}
`, w.name, n, w.spec)
	}
	return b.String()
}

// plain are five Deployments of n pods each, of 250m to 4 vCPUs.
func plain(n int) string {
	var b strings.Builder
	for i, cpu := range []string{"250m", "500m", "1", "2", "4"} {
		fmt.Fprintf(&b, `---
apiVersion: apps/v1
kind: Deployment
metadata: {name: plain-%[1]d, namespace: bench}
spec:
  replicas: %[2]d
  selector: {matchLabels: {app: plain-%[1]d}}
  template:
    metadata: {labels: {app: plain-%[1]d}}
    spec:
      tolerations: [{key: nodegroup, value: app, effect: NoSchedule}]
      containers:
        - {name: app, image: app, resources: {requests: {cpu: %[3]s, memory: 1Gi}}}
`, i, n, cpu)
	}
	return b.String()
}

func must(b testing.TB, err error) {
	b.Helper()
	if err != nil {
		b.Fatal(err)
	}
}
