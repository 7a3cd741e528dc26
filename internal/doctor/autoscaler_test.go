package doctor

import "testing"

// TestIsClusterAutoscaler: the images and commands Cluster Autoscaler
// runs with, from upstream's manifests, its chart and registry mirrors,
// and what only looks like it.
func TestIsClusterAutoscaler(t *testing.T) {
	for _, c := range []struct {
		image   string
		command []string
		want    bool
	}{
		{"registry.k8s.io/autoscaling/cluster-autoscaler:v1.32.1", nil, true},
		{"registry.k8s.io/autoscaling/cluster-autoscaler@sha256:0123abcd", nil, true},
		{"123456789012.dkr.ecr.eu-west-1.amazonaws.com/mirror/cluster-autoscaler:v1.30.0", nil, true},
		{"localhost:5000/cluster-autoscaler", nil, true},
		{"cluster-autoscaler:v1.29.0", nil, true},
		{"example.com/platform/autoscaler:v1", []string{"./cluster-autoscaler", "--cloud-provider=aws"}, true},
		{"registry.k8s.io/autoscaling/cluster-proportional-autoscaler:v1.9.0", nil, false},
		{"registry.k8s.io/autoscaling/vpa-recommender:1.2.1", nil, false},
		{"public.ecr.aws/karpenter/controller:1.14.1", nil, false},
		{"example.com/cluster-autoscaler-dashboard:v1", []string{"/dashboard"}, false},
	} {
		if got := isClusterAutoscaler(c.image, c.command); got != c.want {
			t.Errorf("isClusterAutoscaler(%q, %q) = %v, want %v", c.image, c.command, got, c.want)
		}
	}
}
