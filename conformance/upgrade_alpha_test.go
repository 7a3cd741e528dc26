package conformance

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/strvals"
	"sigs.k8s.io/yaml"

	"github.com/karpgen/karpgen/internal/action"
	"github.com/karpgen/karpgen/internal/model"
	"github.com/karpgen/karpgen/internal/oracle"
	"github.com/karpgen/karpgen/internal/plan/upgrade"
)

// setFlag is a --set of a planned helm command, quoted or not.
var setFlag = regexp.MustCompile(`--set (?:'([^']*)'|(\S+))`)

// TestAlphaUpgradeHelmSteps: the helm steps of the move from v1alpha5
// do, on upstream's charts, what the plan says. Over the values a 0.31
// release keeps (--reuse-values: the settings.aws.* block of 0.31),
// 0.32.10's chart gives the controller the profile's cluster and queue,
// though it reads settings.aws.* first, and keeps the default instance
// profile the AWSNodeTemplates still need; 0.37.8's chart, over what the
// 0.32 step left, gives the same names and runs the webhooks 1.0's
// conversion needs.
func TestAlphaUpgradeHelmSteps(t *testing.T) {
	dir := oracle.Dir(t)
	res, err := action.Check(action.Options{Dir: filepath.Join("..", "internal", "plan", "upgrade", "testdata", "profiles")})
	if err != nil || len(res.Envs) != 1 {
		t.Fatalf("loading the profile: %v %v", err, res.Findings)
	}
	cp := *res.Envs[0].Profile
	cp.Cluster.KubernetesVersion = "1.28"
	e := model.Resolve(&cp)
	p, err := upgrade.New(e, upgrade.Options{From: "0.31.4", To: "1.0.14"})
	if err != nil || p.Blocked() {
		t.Fatalf("planning: %v %v", err, p.Blockers)
	}
	// What the running 0.31 release holds.
	values := map[string]any{}
	for _, s := range []string{
		"settings.aws.clusterName=old-cluster", "settings.aws.interruptionQueueName=old-queue",
		"settings.aws.defaultInstanceProfile=KarpenterNodeInstanceProfile-old",
	} {
		if err := strvals.ParseInto(s, values); err != nil {
			t.Fatal(err)
		}
	}
	n := e.Names
	for _, c := range []struct {
		step, chart, version string
		env                  map[string]string
		settings             map[string]string
	}{
		{"Upgrade the controller to 0.32.10", "migration-v0.32.10", "0.32.10",
			map[string]string{"CLUSTER_NAME": n.Cluster, "INTERRUPTION_QUEUE": n.Queue},
			map[string]string{"aws.clusterName": n.Cluster, "aws.interruptionQueueName": n.Queue, "aws.defaultInstanceProfile": "KarpenterNodeInstanceProfile-old"}},
		{"Upgrade the v1beta1 controller to 0.37.8", "v0.37.8", "0.37.8",
			map[string]string{"CLUSTER_NAME": n.Cluster, "INTERRUPTION_QUEUE": n.Queue, "DISABLE_WEBHOOK": "false"}, nil},
	} {
		t.Run(c.version, func(t *testing.T) {
			var command string
			for _, s := range p.Steps {
				if strings.HasPrefix(s.Title, c.step) {
					command = s.Command
				}
			}
			if !strings.Contains(command, "helm upgrade karpenter ") || !strings.Contains(command, " --reuse-values ") {
				t.Fatalf("no helm upgrade with --reuse-values in step %q: %q", c.step, command)
			}
			for _, m := range setFlag.FindAllStringSubmatch(command, -1) {
				if err := strvals.ParseInto(m[1]+m[2], values); err != nil {
					t.Fatal(err)
				}
			}
			ch, err := loader.Load(filepath.Join(dir, c.chart, "chart"))
			if err != nil {
				t.Fatal(err)
			}
			ch.Metadata.Version, ch.Metadata.AppVersion = c.version, c.version
			out, err := yaml.Marshal(values)
			if err != nil {
				t.Fatal(err)
			}
			objs := renderChart(t, ch, out, n.Namespace)
			env := map[string]string{}
			for _, x := range get(objs["Deployment"][0], "spec", "template", "spec", "containers", 0, "env").([]any) {
				v, _ := get(x, "value").(string)
				env[get(x, "name").(string)] = v
			}
			for k, want := range c.env {
				if env[k] != want {
					t.Errorf("the controller's %s is %q, want %q", k, env[k], want)
				}
			}
			for k, want := range c.settings {
				var got any
				for _, cm := range objs["ConfigMap"] {
					if get(cm, "metadata", "name") == "karpenter-global-settings" {
						got = get(cm, "data", k)
					}
				}
				if got != want {
					t.Errorf("karpenter-global-settings %s is %v, want %q", k, got, want)
				}
			}
		})
	}
}
