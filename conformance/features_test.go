package conformance

import (
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/karpgen/karpgen/generators"
	"github.com/karpgen/karpgen/internal/diag"
	"github.com/karpgen/karpgen/internal/facts"
	"github.com/karpgen/karpgen/internal/lint"
	"github.com/karpgen/karpgen/internal/model"
	"github.com/karpgen/karpgen/internal/oracle"
	"github.com/karpgen/karpgen/internal/profile"
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
	case "nodeClasses.*.capacityReservationSelectorTerms[].instanceMatchCriteria":
		nc.CapacityReservationSelectorTerms = []profile.CapacityReservationTerm{{InstanceMatchCriteria: "open"}}
	case "nodeClasses.*.networkInterfaces":
		nc.NetworkInterfaces = []profile.NetworkInterface{{NetworkCardIndex: 0, DeviceIndex: 0, InterfaceType: "interface"}, {NetworkCardIndex: 1, DeviceIndex: 0, InterfaceType: "efa-only"}}
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
	case "nodeClasses.*.enclaveOptions":
		nc.EnclaveOptions = &profile.EnclaveOptions{Enabled: true}
	case "capacityBuffers":
		p.CapacityBuffers = map[string]profile.CapacityBuffer{"web": {Namespace: "default", PodTemplate: "web-chunk", Replicas: &two}}
	}
	p.NodeClasses["default"] = nc
}

// TestFeaturesOnTheirFirstMinor: every feature of the facts table renders
// on the minor it arrives in into objects that minor's CRDs (with CEL)
// accept, and the chart of that minor renders with the gate it needs on.
func TestFeaturesOnTheirFirstMinor(t *testing.T) {
	dir := oracle.Dir(t)
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

// profileSource answers lint's questions from a profile built in Go: a
// field is set when its JSON form has it.
type profileSource struct{ v any }

func (profileSource) Pos(string) diag.Pos { return diag.Pos{} }

func (s profileSource) Has(path string) bool {
	cur := s.v
	for _, part := range strings.Split(path, ".") {
		name, index, indexed := strings.Cut(strings.TrimSuffix(part, "]"), "[")
		m, ok := cur.(map[string]any)
		if !ok || m[name] == nil {
			return false
		}
		cur = m[name]
		if indexed {
			l, _ := cur.([]any)
			i, err := strconv.Atoi(index)
			if err != nil || i >= len(l) {
				return false
			}
			cur = l[i]
		}
	}
	return true
}

// TestFeaturesRefusedBefore: on the minor before the one a feature
// arrives in, vet refuses it with a message naming that minor.
func TestFeaturesRefusedBefore(t *testing.T) {
	for _, f := range facts.Features {
		t.Run(f.Path, func(t *testing.T) {
			i := slices.IndexFunc(facts.Minors, func(m facts.Minor) bool { return m.Minor == f.Since })
			prev := &facts.Minors[i-1]
			p := richProfile(variant{prev, profile.AuthPodIdentity, true})
			withFeature(p, f)
			e := model.Resolve(p)
			var found []string
			for _, fd := range lint.Check(e, profileSource{oracle.Normalize(p)}) {
				if fd.Rule == "version/feature" {
					found = append(found, fd.Message)
				}
			}
			if len(found) == 0 {
				t.Fatalf("Karpenter %s: no version/feature finding", prev.Minor)
			}
			for _, msg := range found {
				if !strings.Contains(msg, "arrives in Karpenter "+f.Since+"; the profile runs ") {
					t.Errorf("message %q does not name %s", msg, f.Since)
				}
			}
		})
	}
}

// TestEnumValuesOnTheirFirstMinor: the values the facts table says arrive
// in a minor (Balanced consolidation, the reserved capacity type, the Gte
// and Lte operators, the windows2025 alias) render on that minor into
// objects its CRDs accept, and the chart runs with reservedCapacity on
// when a pool may use reserved capacity.
func TestEnumValuesOnTheirFirstMinor(t *testing.T) {
	dir := oracle.Dir(t)
	cases := []struct {
		name  string
		first string
		apply func(p *profile.Profile)
	}{
		{"Balanced", facts.Arrival.ConsolidationPolicies["Balanced"], func(p *profile.Profile) {
			np := p.NodePools["app"]
			np.Disruption.ConsolidationPolicy = "Balanced"
			p.NodePools["app"] = np
		}},
		{"reserved", facts.Arrival.CapacityTypes[facts.ReservedCapacity], func(p *profile.Profile) {
			np := p.NodePools["app"]
			np.CapacityTypes = []string{facts.ReservedCapacity, "on-demand"}
			p.NodePools["app"] = np
		}},
		{"Gte", facts.Arrival.RequirementOperators["Gte"], func(p *profile.Profile) {
			np := p.NodePools["app"]
			np.Requirements = append(np.Requirements, profile.Requirement{Key: "karpenter.k8s.aws/instance-cpu", Operator: "Gte", Values: []string{"4"}},
				profile.Requirement{Key: "karpenter.k8s.aws/instance-memory", Operator: "Lte", Values: []string{"65536"}})
			p.NodePools["app"] = np
		}},
		{"windows2025", facts.Arrival.AMIFamilies["windows2025"], func(p *profile.Profile) {
			nc := p.NodeClasses["default"]
			nc.AMI = profile.AMI{Alias: "windows2025@latest"}
			p.NodeClasses["default"] = nc
		}},
		{"Unhealthy", facts.Arrival.BudgetReasons["Unhealthy"], func(p *profile.Profile) {
			np := p.NodePools["app"]
			np.Disruption.Budgets = append(np.Disruption.Budgets, profile.Budget{Nodes: "1", Reasons: []string{"Unhealthy"}})
			p.NodePools["app"] = np
		}},
	}
	for _, c := range cases {
		t.Run(c.name+"/"+c.first, func(t *testing.T) {
			m, ok := facts.LookupMinor(c.first)
			if !ok {
				t.Fatalf("no first minor for %s", c.name)
			}
			p := richProfile(variant{m, profile.AuthPodIdentity, true})
			c.apply(p)
			b, err := generators.Render(model.Resolve(p))
			if err != nil {
				t.Fatal(err)
			}
			for file, crdFile := range map[string]string{"nodepools.yaml": "karpenter.sh_nodepools.yaml", "ec2nodeclasses.yaml": "karpenter.k8s.aws_ec2nodeclasses.yaml"} {
				def := loadCRD(t, filepath.Join(dir, m.Reference, "crds", crdFile))
				for _, o := range objects(t, b.Files[file]) {
					if errs := def.validate(o); len(errs) > 0 {
						t.Errorf("the %s CRD refuses %s %s: %v", m.Reference, o["kind"], get(o, "metadata", "name"), errs)
					}
				}
			}
			if c.name == "reserved" && !strings.Contains(string(b.Files["helm/karpenter-values.yaml"]), "reservedCapacity: true") {
				t.Error("reserved capacity without the reservedCapacity gate on")
			}
			// On the minor before, vet refuses it, naming the minor.
			prev := &facts.Minors[slices.IndexFunc(facts.Minors, func(r facts.Minor) bool { return r.Minor == m.Minor })-1]
			p = richProfile(variant{prev, profile.AuthPodIdentity, true})
			c.apply(p)
			var refused []string
			for _, fd := range lint.Check(model.Resolve(p), profileSource{oracle.Normalize(p)}) {
				if fd.Severity == diag.Error && strings.Contains(fd.Message, "arrives in Karpenter "+m.Minor) {
					refused = append(refused, fd.Rule)
				}
			}
			if len(refused) == 0 {
				t.Errorf("Karpenter %s: vet does not refuse %s naming %s", prev.Minor, c.name, m.Minor)
			}
		})
	}
}
