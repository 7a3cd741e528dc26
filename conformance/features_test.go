package conformance

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/karpgen/karpgen/generators"
	"github.com/karpgen/karpgen/generators/facts"
	"github.com/karpgen/karpgen/internal/model"
	"github.com/karpgen/karpgen/internal/profile"
	"github.com/karpgen/karpgen/internal/reference"
)

// withFeature sets one feature of the facts table in a profile.
func withFeature(p *profile.Profile, f facts.Feature) {
	nc := p.NodeClasses["default"]
	two, rate := 2, 200
	switch f.Path {
	case "nodeClasses.*.capacityReservationSelectorTerms":
		nc.CapacityReservationSelectorTerms = []profile.CapacityReservationTerm{{ID: "cr-0abc"}, {OwnerID: "491085395789", Tags: map[string]string{"team": "a"}}}
	case "nodeClasses.*.ami.ssmParameter":
		nc.AMI = profile.AMI{SSMParameter: "/aws/service/eks/optimized-ami/1.32/amazon-linux-2023/x86_64/standard/recommended/image_id", Family: "AL2023"}
	case "nodeClasses.*.blockDevices[].volumeInitializationRate":
		nc.BlockDevices = []profile.BlockDevice{{DeviceName: "/dev/xvda", VolumeSize: "100Gi", VolumeType: "gp3", Encrypted: true,
			DeleteOnTermination: true, SnapshotID: "snap-0abc", VolumeInitializationRate: &rate}}
	case "nodeClasses.*.ipPrefixCount":
		nc.IPPrefixCount = &two
	case "nodeClasses.*.placementGroupSelector":
		nc.PlacementGroupSelector = map[string]string{"name": "pg-app"}
	case "nodeClasses.*.cpuOptions":
		nc.CPUOptions = map[string]string{"nestedVirtualization": "enabled"}
	case "nodeClasses.*.connectionTracking":
		nc.ConnectionTracking = map[string]int{"tcpEstablishedTimeout": 3600, "udpTimeout": 30}
	case "nodePools.*.replicas":
		np := p.NodePools["batch"]
		np.Replicas, np.Weight, np.Limits = &two, nil, map[string]any{"nodes": 3}
		p.NodePools["batch"] = np
	case "nodeOverlays":
		ten := 10
		p.NodeOverlays = map[string]profile.NodeOverlay{
			"fuse":     {Requirements: []profile.Requirement{{Key: "karpenter.k8s.aws/instance-family", Operator: "In", Values: []string{"m5"}}}, Capacity: map[string]any{"smarter-devices/fuse": 1}},
			"discount": {Requirements: []profile.Requirement{{Key: "karpenter.sh/capacity-type", Operator: "In", Values: []string{"on-demand"}}}, PriceAdjustment: "-10%", Weight: &ten},
		}
	case "capacityBuffers":
		p.CapacityBuffers = map[string]profile.CapacityBuffer{"web": {Namespace: "default", PodTemplate: "web-chunk", Replicas: &two}}
	}
	p.NodeClasses["default"] = nc
}

// TestFeaturesOnTheirFirstMinor: every feature of the facts table renders
// on the minor it arrives in into objects that minor's CRDs (with CEL)
// accept, and the chart of that minor renders with the gate it needs on.
func TestFeaturesOnTheirFirstMinor(t *testing.T) {
	dir := reference.Dir(t)
	files := map[string]string{"NodePool": "karpenter.sh_nodepools.yaml", "EC2NodeClass": "karpenter.k8s.aws_ec2nodeclasses.yaml",
		"NodeOverlay": "karpenter.sh_nodeoverlays.yaml", "CapacityBuffer": "autoscaling.x-k8s.io_capacitybuffers.yaml"}
	bundleFile := map[string]string{"NodePool": "nodepools.yaml", "EC2NodeClass": "ec2nodeclasses.yaml", "NodeOverlay": "nodeoverlays.yaml", "CapacityBuffer": "capacitybuffers.yaml"}
	for _, f := range facts.Features {
		t.Run(f.Path, func(t *testing.T) {
			m, _ := facts.LookupMinor(f.Since)
			p := richProfile(variant{m, profile.AuthPodIdentity, true})
			withFeature(p, f)
			e := model.Resolve(p)
			b, err := generators.Render(e)
			if err != nil {
				t.Fatal(err)
			}
			def := loadCRD(t, filepath.Join(dir, m.Reference, "crds", files[f.Kind]))
			objs := objects(t, b.Files[bundleFile[f.Kind]])
			if len(objs) == 0 {
				t.Fatalf("no %s in the bundle", f.Kind)
			}
			for _, o := range objs {
				if errs := def.validate(o); len(errs) > 0 {
					t.Errorf("the %s %s CRD refuses %s: %v", m.Reference, f.Kind, get(o, "metadata", "name"), errs)
				}
			}
			if !strings.Contains(string(b.Files["kustomization.yaml"]), bundleFile[f.Kind]) {
				t.Errorf("kustomization.yaml does not list %s", bundleFile[f.Kind])
			}
			if f.Gate == "" {
				return
			}
			deploy := renderChart(t, loadChart(t, m), b.Files["helm/karpenter-values.yaml"], p.Karpenter.Namespace)["Deployment"][0]
			found := false
			for _, c := range get(deploy, "spec", "template", "spec", "containers").([]any) {
				for _, env := range get(c, "env").([]any) {
					if get(env, "name") == "FEATURE_GATES" {
						found = strings.Contains(strings.ToLower(get(env, "value").(string)), strings.ToLower(f.Gate)+"=true")
					}
				}
			}
			if !found {
				t.Errorf("the %s chart does not run with %s=true", m.Reference, f.Gate)
			}
		})
	}
}
