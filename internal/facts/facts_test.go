package facts_test

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/karpgen/karpgen/internal/facts"
	"github.com/karpgen/karpgen/internal/oracle"
)

// compatibility is upstream's compatibility matrix.
type compatibility struct {
	Compatibility []struct {
		AppVersion    string `yaml:"appVersion"`
		MinK8sVersion string `yaml:"minK8sVersion"`
		MaxK8sVersion string `yaml:"maxK8sVersion"`
	} `yaml:"compatibility"`
}

// TestTableMatchesUpstream checks every row of the facts table against
// that minor's chart, CRDs and the compatibility matrix.
func TestTableMatchesUpstream(t *testing.T) {
	dir := oracle.Dir(t)
	compat := readYAML[compatibility](t, filepath.Join(dir, "compatibility.yaml"))
	for _, m := range facts.Minors {
		t.Run(m.Reference, func(t *testing.T) {
			// Kubernetes range: the row of the minor (latest patch).
			var rng [2]string
			for _, c := range compat.Compatibility {
				if c.AppVersion == m.Minor+".x" || strings.HasPrefix(c.AppVersion, m.Minor+".") && c.AppVersion != m.Minor+".x" {
					rng = [2]string{c.MinK8sVersion, c.MaxK8sVersion}
				}
			}
			switch {
			case rng != [2]string{} && m.KubernetesFrom != "":
				t.Errorf("the matrix lists %s now: take its range %v and drop KubernetesFrom", m.Minor, rng)
			case rng == [2]string{}:
				// Not in the matrix yet: the maximum is the Kubernetes
				// minor the release's module builds against.
				api := goModVersion(t, filepath.Join(dir, m.Reference, "go.mod"), "k8s.io/api")
				var minor int
				fmt.Sscanf(api, "v0.%d.", &minor)
				if want := fmt.Sprintf("1.%d", minor); m.Kubernetes[1] != want || !strings.Contains(m.KubernetesFrom, "k8s.io/api "+api) {
					t.Errorf("%s is not in the matrix: Kubernetes max %s (from %q), its go.mod builds against k8s.io/api %s, so %s",
						m.Minor, m.Kubernetes[1], m.KubernetesFrom, api, want)
				}
			case rng != m.Kubernetes:
				t.Errorf("Kubernetes range %v, matrix says %v", m.Kubernetes, rng)
			}

			values := readYAML[struct {
				Settings map[string]any `yaml:"settings"`
			}](t, filepath.Join(dir, m.Reference, "chart", "values.yaml"))
			gates := map[string]bool{}
			for _, g := range m.FeatureGates {
				gates[g.Name] = g.Default
			}
			chartGates := map[string]bool{}
			for k, v := range values.Settings["featureGates"].(map[string]any) {
				chartGates[k] = v.(bool)
			}
			if !reflect.DeepEqual(gates, chartGates) {
				t.Errorf("feature gates %v, chart has %v", gates, chartGates)
			}
			awsGates := map[string]any{}
			for _, g := range m.AWSFeatureGates {
				awsGates[g.Name] = g.Default
				if g.Unset {
					awsGates[g.Name] = nil
				}
			}
			chartAWS, _ := values.Settings["awsFeatureGates"].(map[string]any)
			if chartAWS == nil {
				chartAWS = map[string]any{}
			}
			if !reflect.DeepEqual(awsGates, chartAWS) {
				t.Errorf("AWS feature gates %v, chart has %v", awsGates, chartAWS)
			}

			crd := readText(t, filepath.Join(dir, m.Reference, "crds", "karpenter.sh_nodepools.yaml"))
			allow := regexp.MustCompile(`rule: self in \[("karpenter\.k8s\.aws[^\]]*)\]`).FindStringSubmatch(crd)
			if allow == nil {
				t.Fatal("no karpenter.k8s.aws allow-list in the NodePool CRD")
			}
			if got, want := set(m.Labels.AWSKeys), set(regexp.MustCompile(`"([^"]+)"`).FindAllString(allow[1], -1)); !reflect.DeepEqual(got, want) {
				t.Errorf("karpenter.k8s.aws keys:\n got %v\nwant %v", got, want)
			}
			if restricts := strings.Contains(crd, `endsWith("k8s.io")`); restricts != m.Labels.RestrictKubernetesDomains {
				t.Errorf("RestrictKubernetesDomains %v, CRD restricts k8s.io: %v", m.Labels.RestrictKubernetesDomains, restricts)
			}
			if got, want := set(m.RequirementOperators), set(enumAfter(t, crd, "operator:")); !reflect.DeepEqual(got, want) {
				t.Errorf("operators %v, CRD %v", got, want)
			}
			if got, want := set(m.ConsolidationPolicies), set(v1Policies(crd)); !reflect.DeepEqual(got, want) {
				t.Errorf("consolidation policies %v, CRD %v", got, want)
			}

			nc := readText(t, filepath.Join(dir, m.Reference, "crds", "karpenter.k8s.aws_ec2nodeclasses.yaml"))
			open := regexp.MustCompile(`(?m)^ {16}kubelet:\n {18}additionalProperties:\n {20}x-kubernetes-preserve-unknown-fields: true`).MatchString(nc)
			if open != m.OpenKubelet {
				t.Errorf("OpenKubelet %v, the EC2NodeClass CRD's kubelet is an open map: %v", m.OpenKubelet, open)
			}
			fam := regexp.MustCompile(`rule: self\.split\('@'\)\[0\] in \[([^\]]*)\]`).FindStringSubmatch(nc)
			if fam == nil {
				t.Fatal("no alias family rule in the EC2NodeClass CRD")
			}
			if got, want := set(m.AMIFamilies), set(regexp.MustCompile(`'([^']+)'`).FindAllString(fam[1], -1)); !reflect.DeepEqual(got, want) {
				t.Errorf("alias families %v, CRD %v", got, want)
			}
		})
	}
}

// goModVersion is the version a go.mod requires of a module.
func goModVersion(t *testing.T, path, module string) string {
	t.Helper()
	m := regexp.MustCompile(`(?m)^\s+` + regexp.QuoteMeta(module) + ` (v\S+)`).FindStringSubmatch(readText(t, path))
	if m == nil {
		t.Fatalf("%s requires no %s", path, module)
	}
	return m[1]
}

func readText(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func readYAML[T any](t *testing.T, path string) T {
	t.Helper()
	var v T
	if err := yaml.Unmarshal([]byte(readText(t, path)), &v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return v
}

// enumAfter returns the first enum list following a key in a CRD.
func enumAfter(t *testing.T, crd, key string) []string {
	m := regexp.MustCompile(regexp.QuoteMeta(key) + `(?s:.*?)enum:\n((?:\s*- \w+\n)+)`).FindStringSubmatch(crd)
	if m == nil {
		t.Fatalf("no enum after %s", key)
	}
	var out []string
	for _, l := range strings.Split(strings.TrimSpace(m[1]), "\n") {
		out = append(out, strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(l), "-")))
	}
	return out
}

// v1Policies returns the consolidationPolicy enum that has the v1 name.
func v1Policies(crd string) []string {
	for _, m := range regexp.MustCompile(`consolidationPolicy:(?s:.*?)enum:\n((?:\s*- \w+\n)+)`).FindAllStringSubmatch(crd, -1) {
		if strings.Contains(m[1], "WhenEmptyOrUnderutilized") {
			var out []string
			for _, l := range strings.Split(strings.TrimSpace(m[1]), "\n") {
				out = append(out, strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(l), "-")))
			}
			return out
		}
	}
	return nil
}

func set(s []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, x := range s {
		x = strings.Trim(x, `"'`)
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	sort.Strings(out)
	return out
}

// TestChartValuesMatchUpstream: the generated table of chart values is
// each minor's values.yaml (go generate ./internal/facts writes it
// after a refresh of the reference data), and each row's CRDs are the minor's.
func TestChartValuesMatchUpstream(t *testing.T) {
	dir := oracle.Dir(t)
	tags := []string{"v0.37.8"}
	for _, m := range facts.Minors {
		tags = append(tags, m.Reference)
	}
	for _, tag := range tags {
		data, err := os.ReadFile(filepath.Join(dir, tag, "chart", "values.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		want, err := facts.ValuesLeaves(data)
		if err != nil {
			t.Fatal(err)
		}
		minor := strings.Join(strings.Split(strings.TrimPrefix(tag, "v"), ".")[:2], ".")
		if got := facts.ChartValues(minor); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: the chart values table is stale: run go generate ./internal/facts", tag)
		}
	}
	kinds := map[string]string{"karpenter.sh_nodepools.yaml": "NodePool", "karpenter.sh_nodeclaims.yaml": "NodeClaim",
		"karpenter.k8s.aws_ec2nodeclasses.yaml": "EC2NodeClass", "karpenter.sh_nodeoverlays.yaml": "NodeOverlay",
		"autoscaling.x-k8s.io_capacitybuffers.yaml": "CapacityBuffer"}
	for _, m := range facts.Minors {
		entries, err := os.ReadDir(filepath.Join(dir, m.Reference, "crds"))
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, e := range entries {
			k, ok := kinds[e.Name()]
			if !ok {
				t.Errorf("%s: CRD file %s of no known kind", m.Reference, e.Name())
			}
			got = append(got, k)
		}
		if !reflect.DeepEqual(set(got), set(m.CRDs)) {
			t.Errorf("%s: CRDs %v, upstream has %v", m.Minor, m.CRDs, got)
		}
	}
}

// TestFeaturesMatchUpstream: each feature's field (or kind) is in the CRD
// of the minor it arrives in and not in the minor before, and its gate is
// a chart gate of that minor.
func TestFeaturesMatchUpstream(t *testing.T) {
	dir := oracle.Dir(t)
	files := map[string]string{"EC2NodeClass": "karpenter.k8s.aws_ec2nodeclasses.yaml", "NodePool": "karpenter.sh_nodepools.yaml"}
	for _, f := range facts.Features {
		t.Run(f.Path, func(t *testing.T) {
			first, ok := facts.LookupMinor(f.Since)
			if !ok {
				t.Fatalf("no row for %s", f.Since)
			}
			prev := &facts.Minors[slices.IndexFunc(facts.Minors, func(m facts.Minor) bool { return m.Minor == f.Since })-1]
			if f.Gate != "" && !slices.ContainsFunc(first.FeatureGates, func(g facts.Gate) bool { return g.Name == f.Gate }) {
				t.Errorf("%s has no gate %s", first.Minor, f.Gate)
			}
			if f.CRDPath == "" {
				if !slices.Contains(first.CRDs, f.Kind) || slices.Contains(prev.CRDs, f.Kind) {
					t.Errorf("%s arrives in %s: the CRDs say otherwise", f.Kind, f.Since)
				}
				return
			}
			for _, c := range []struct {
				m    *facts.Minor
				want bool
			}{{first, true}, {prev, false}} {
				var doc map[string]any
				data := readText(t, filepath.Join(dir, c.m.Reference, "crds", files[f.Kind]))
				if err := yaml.Unmarshal([]byte(data), &doc); err != nil {
					t.Fatal(err)
				}
				node := doc["spec"].(map[string]any)["versions"].([]any)[0].(map[string]any)["schema"].(map[string]any)["openAPIV3Schema"].(map[string]any)["properties"].(map[string]any)["spec"]
				for _, part := range strings.Split(f.CRDPath, ".") {
					name, list := strings.CutSuffix(part, "[]")
					props, _ := node.(map[string]any)["properties"].(map[string]any)
					node = props[name]
					if node != nil && list {
						node = node.(map[string]any)["items"]
					}
					if node == nil {
						break
					}
				}
				if (node != nil) != c.want {
					t.Errorf("%s spec.%s in %s: %v, want %v", f.Kind, f.CRDPath, c.m.Reference, node != nil, c.want)
				}
			}
		})
	}
}

// TestSettingsTablesMatchUpstream holds the settings tables to the charts:
// every derived setting is a setting of some chart, and the values of each
// enum setting are the ones its values.yaml comment lists, on every minor
// that has it.
func TestSettingsTablesMatchUpstream(t *testing.T) {
	dir := oracle.Dir(t)
	for name := range facts.DerivedSettings {
		// A leaf setting, or a map of them (featureGates).
		found := false
		for _, m := range facts.Minors {
			for key := range facts.ChartValues(m.Minor) {
				found = found || key == "settings."+name || strings.HasPrefix(key, "settings."+name+".")
			}
		}
		if !found {
			t.Errorf("derived setting %s is in no chart", name)
		}
	}
	for name, values := range facts.SettingValues {
		since := facts.SettingSince(name)
		if since == "" {
			t.Errorf("enum setting %s is in no chart", name)
			continue
		}
		for _, m := range facts.Minors {
			if _, ok := facts.Settings(m.Minor)[name]; !ok {
				continue
			}
			data, err := os.ReadFile(filepath.Join(dir, m.Reference, "chart", "values.yaml"))
			if err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(string(data), "\n")
			i := slices.IndexFunc(lines, func(l string) bool { return strings.HasPrefix(strings.TrimSpace(l), name+":") })
			if i < 1 {
				t.Fatalf("%s: no line settings.%s in values.yaml", m.Reference, name)
			}
			comment := lines[i-1]
			quoted := regexp.MustCompile(`'([A-Za-z]+)'`).FindAllStringSubmatch(comment, -1)
			var got []string
			for _, q := range quoted {
				got = append(got, q[1])
			}
			if want := slices.Sorted(slices.Values(values)); !slices.Equal(slices.Sorted(slices.Values(got)), want) {
				t.Errorf("%s settings.%s: the chart lists %v, the table %v", m.Reference, name, got, want)
			}
		}
	}
}

// TestFeaturesCoverEveryNewField: every spec field a minor's EC2NodeClass
// or NodePool CRD adds is a feature of the table arriving in that minor,
// so a new minor's fields cannot slip in ungated.
func TestFeaturesCoverEveryNewField(t *testing.T) {
	dir := oracle.Dir(t)
	files := map[string]string{"EC2NodeClass": "karpenter.k8s.aws_ec2nodeclasses.yaml", "NodePool": "karpenter.sh_nodepools.yaml"}
	for kind, file := range files {
		var prev map[string]bool
		for _, m := range facts.Minors {
			cur := specPaths(t, filepath.Join(dir, m.Reference, "crds", file))
			for _, p := range slices.Sorted(maps.Keys(cur)) {
				if prev == nil || prev[p] {
					continue
				}
				covered := slices.ContainsFunc(facts.Features, func(f facts.Feature) bool {
					return f.Kind == kind && f.Since == m.Minor && f.CRDPath != "" &&
						(p == f.CRDPath || strings.HasPrefix(p, f.CRDPath+".") || strings.HasPrefix(p, f.CRDPath+"[]"))
				})
				if !covered {
					t.Errorf("%s %s adds spec.%s, which no feature of the table arriving in %s covers", kind, m.Reference, p, m.Minor)
				}
			}
			prev = cur
		}
	}
}

// specPaths lists the field paths under spec of a CRD's first version,
// lists marked with [] ("blockDeviceMappings[].ebs.iops").
func specPaths(t *testing.T, file string) map[string]bool {
	t.Helper()
	var doc map[string]any
	if err := yaml.Unmarshal([]byte(readText(t, file)), &doc); err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	var walk func(n any, prefix string)
	walk = func(n any, prefix string) {
		m, _ := n.(map[string]any)
		if items, ok := m["items"]; ok {
			walk(items, prefix+"[]")
		}
		props, _ := m["properties"].(map[string]any)
		for k, v := range props {
			p := k
			if prefix != "" {
				p = prefix + "." + k
			}
			out[p] = true
			walk(v, p)
		}
	}
	walk(doc["spec"].(map[string]any)["versions"].([]any)[0].(map[string]any)["schema"].(map[string]any)["openAPIV3Schema"].(map[string]any)["properties"].(map[string]any)["spec"], "")
	return out
}

// TestCRDNamesMatchUpstream: for every minor, each CRD the row names has
// the name and the storage version of that minor's upstream CRD file, and
// serves it; a minor converts through a webhook exactly when its CRDs do.
func TestCRDNamesMatchUpstream(t *testing.T) {
	dir := oracle.Dir(t)
	for _, m := range facts.Minors {
		entries, err := os.ReadDir(filepath.Join(dir, m.Reference, "crds"))
		if err != nil {
			t.Fatal(err)
		}
		upstream := map[string]facts.CRD{}
		webhook := false
		for _, e := range entries {
			data, err := os.ReadFile(filepath.Join(dir, m.Reference, "crds", e.Name()))
			if err != nil {
				t.Fatal(err)
			}
			var crd struct {
				Metadata struct{ Name string }
				Spec     struct {
					Names    struct{ Kind string }
					Versions []struct {
						Name            string
						Served, Storage bool
					}
					Conversion struct{ Strategy string }
				}
			}
			if err := yaml.Unmarshal(data, &crd); err != nil {
				t.Fatalf("%s: %v", e.Name(), err)
			}
			webhook = webhook || crd.Spec.Conversion.Strategy == "Webhook"
			for _, v := range crd.Spec.Versions {
				if v.Storage && v.Served {
					upstream[crd.Spec.Names.Kind] = facts.CRD{Kind: crd.Spec.Names.Kind, Name: crd.Metadata.Name, Version: v.Name}
				}
			}
		}
		for _, c := range m.CRDsOf() {
			if upstream[c.Kind] != c {
				t.Errorf("%s: %+v, upstream %+v", m.Minor, c, upstream[c.Kind])
			}
		}
		if m.ConversionWebhook != webhook {
			t.Errorf("%s: ConversionWebhook is %v, but upstream's CRDs convert through a webhook: %v", m.Minor, m.ConversionWebhook, webhook)
		}
	}
}

// TestSupportWindows: release days run in table order, a long-term-support
// minor is supported for twelve months from its release, and every other
// minor until the next one's release.
func TestSupportWindows(t *testing.T) {
	for i, m := range facts.Minors {
		released, err := time.Parse(time.DateOnly, m.Released)
		if err != nil {
			t.Fatalf("%s: Released %q: %v", m.Minor, m.Released, err)
		}
		if i > 0 && m.Released <= facts.Minors[i-1].Released {
			t.Errorf("%s released %s, not after %s's %s", m.Minor, m.Released, facts.Minors[i-1].Minor, facts.Minors[i-1].Released)
		}
		switch {
		case m.LTSUntil != "":
			if want := released.AddDate(1, 0, 0).Format(time.DateOnly); m.LTSUntil != want {
				t.Errorf("%s: LTS until %s, twelve months after its release is %s", m.Minor, m.LTSUntil, want)
			}
		case i+1 < len(facts.Minors):
			if got, want := m.SupportEnds(), facts.Minors[i+1].Released; got != want {
				t.Errorf("%s: support ends %s, want %s (the next minor's release)", m.Minor, got, want)
			}
		default:
			if m.SupportEnds() != "" || !m.SupportedOn("2999-01-01") {
				t.Errorf("%s is the newest minor: supported until the next", m.Minor)
			}
		}
	}
	if lts := facts.LTS(); len(lts) != 2 || lts[0].Minor != "1.9" || lts[1].Minor != "1.14" {
		t.Errorf("LTS minors %v, SUPPORT.md names 1.9 and 1.14", lts)
	}
}

// TestZones: every region karpgen knows is in the zone table, every zone
// name of it belongs to it, and Local Zones are never judged by it.
func TestZones(t *testing.T) {
	for region := range facts.Regions {
		letters := facts.Regions[region]
		if len(letters) < 2 {
			t.Errorf("%s: zones %q", region, letters)
		}
		for _, z := range facts.ZoneNames(region) {
			if facts.RegionOfZone(z) != region {
				t.Errorf("%s is not of %s", z, region)
			}
			if exists, known := facts.ZoneExists(z); !exists || !known {
				t.Errorf("%s: exists %v, known %v", z, exists, known)
			}
		}
	}
	for zone, want := range map[string][2]bool{
		"ap-northeast-2e": {false, true}, "ap-northeast-2d": {true, true}, "ca-central-1c": {false, true},
		"us-west-2-lax-1a": {false, false}, "xx-east-9a": {false, false},
	} {
		if exists, known := facts.ZoneExists(zone); exists != want[0] || known != want[1] {
			t.Errorf("%s: exists %v, known %v; want %v", zone, exists, known, want)
		}
	}
}

// TestZeroKubernetesRanges holds the Kubernetes ranges of the 0.x minors
// the planner moves through (the v1alpha5 start and the v1beta1 minors)
// to upstream's compatibility matrix: every minor of each span.
func TestZeroKubernetesRanges(t *testing.T) {
	compat := readYAML[compatibility](t, filepath.Join(oracle.Dir(t), "compatibility.yaml"))
	rows := map[string][2]string{}
	for _, c := range compat.Compatibility {
		rows[strings.TrimSuffix(c.AppVersion, ".x")] = [2]string{c.MinK8sVersion, c.MaxK8sVersion}
	}
	for minor := facts.Alpha.Oldest; minor <= 37; minor++ {
		v, err := facts.ParseVersion(fmt.Sprintf("0.%d.0", minor))
		if err != nil {
			t.Fatal(err)
		}
		row, ok := rows[v.MinorString()]
		if !ok {
			t.Fatalf("the matrix has no row for %s", v.MinorString())
		}
		got := facts.ZeroKubernetes(v)
		if facts.Beta.Holds(v) {
			// The v1beta1 span is planned through its last minor: the
			// range is the last minor's.
			row = rows[facts.Beta.Minor]
		}
		if !facts.Alpha.Holds(v) && !facts.Beta.Holds(v) {
			t.Errorf("0.%d is neither in the v1alpha5 start nor in the v1beta1 minors", minor)
		}
		if got != row {
			t.Errorf("ZeroKubernetes(%s) = %v, the matrix says %v", v, got, row)
		}
	}
}
