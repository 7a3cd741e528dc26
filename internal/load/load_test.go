package load_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/karpgen/karpgen/internal/load"
)

const good = `package profiles

environments: dev: {
	cluster: {name: "ws-dev", region: "ap-northeast-2", accountID: "491085395789", kubernetesVersion: "1.32"}
	karpenter: {version: "1.2.3", controller: nodeGroup: "system"}
	nodeGroups: system: labels: nodegroup: "system"
	nodeClasses: default: ami: alias: "al2023@latest"
	nodePools: app: zones: ["ap-northeast-2a"]
}
`

func loadString(t testing.TB, src string) (*load.Result, error) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "p.cue"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return load.Load(load.Folder{FS: os.DirFS(dir), Path: dir}, nil, nil)
}

func TestLoadDefaults(t *testing.T) {
	res, err := loadString(t, good)
	if err != nil || len(res.Findings) > 0 {
		t.Fatalf("err %v, findings %v", err, res.Findings)
	}
	p := res.Envs[0].Profile
	got := []string{p.Cluster.Partition, p.Karpenter.Namespace, p.Karpenter.ServiceAccount, p.Karpenter.Auth,
		p.NodePools["app"].NodeClass, p.NodePools["app"].Disruption.ConsolidationPolicy, p.NodePools["app"].ExpireAfter,
		p.NodeClasses["default"].SubnetSelectorTerms[0].Tags["karpenter.sh/discovery"], p.NodeClasses["default"].MetadataOptions.HTTPTokens}
	want := []string{"aws", "kube-system", "karpenter", "podIdentity", "default", "WhenEmptyOrUnderutilized", "720h", "ws-dev", "required"}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("defaults:\n got %v\nwant %v", got, want)
	}
	if e := res.Envs[0]; e.Pos("nodePools.app.zones[0]").Line != 8 || e.Pos("nodePools.app.expireAfter").Line != 8 {
		t.Errorf("positions: zones %v, defaulted expireAfter %v (want its pool's line 8)", e.Pos("nodePools.app.zones[0]"), e.Pos("nodePools.app.expireAfter"))
	}
}

// FuzzLoad feeds mutated profiles to the loader: it must never panic, and
// every finding it reports carries a message and a position.
func FuzzLoad(f *testing.F) {
	f.Add(good)
	f.Add(strings.Replace(good, `"1.2.3"`, `1.2`, 1))
	f.Add(strings.Replace(good, `nodePools: app:`, `nodePools: "a/b":`, 1))
	f.Add(`package profiles
environments: 3`)
	f.Add(`package profiles
environments: x: _|_`)
	f.Fuzz(func(t *testing.T, src string) {
		res, err := loadString(t, src)
		if err != nil {
			return
		}
		for _, fd := range res.Findings {
			if strings.TrimSpace(fd.Message) == "" || fd.Rule == "" || !fd.Pos.IsValid() {
				t.Errorf("finding without message, rule or position: %+v", fd)
			}
		}
	})
}

// FuzzJsonnetLoad feeds mutated Jsonnet profiles to the loader: it never
// panics, every finding has a message, a rule and a position, and nothing
// outside the folder is read (the folder holds only the profile).
func FuzzJsonnetLoad(f *testing.F) {
	f.Add(`{ environments: { dev: { cluster: { name: "ws-dev", region: "ap-northeast-2", accountID: "491085395789", kubernetesVersion: "1.32" }, karpenter: { version: "1.2.3", controller: { nodeGroup: "system" } }, nodeGroups: { system: { labels: { nodegroup: "system" } } }, nodeClasses: { default: { ami: { alias: "al2023@latest" } } }, nodePools: { app: { zones: ["ap-northeast-2a"] } } } } }`)
	f.Add(`local f(n) = if n == 0 then 0 else 1 + f(n - 1); { environments: { dev: { x: f(1000) } } }`)
	f.Add(`{ environments: { dev: importstr "/etc/hostname" } }`)
	f.Add(`{ environments: { dev: import "p.jsonnet" } }`)
	f.Add(`std.native("x")`)
	f.Add(`{ environments: std.extVar("HOME") }`)
	f.Fuzz(func(t *testing.T, src string) {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "p.jsonnet"), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		res, err := load.Load(load.Folder{FS: os.DirFS(dir), Path: dir}, nil, nil)
		if err != nil {
			return
		}
		for _, fd := range res.Findings {
			if strings.TrimSpace(fd.Message) == "" || fd.Rule == "" || !fd.Pos.IsValid() {
				t.Errorf("finding without message, rule or position: %+v", fd)
			}
		}
	})
}

// TestLoadNamedEnvironmentsOnly: asking for one environment evaluates
// only it. Another environment's conflict goes unseen (its syntax is
// dropped before evaluation), unless the package refers to
// `environments`, which keeps every environment.
func TestLoadNamedEnvironmentsOnly(t *testing.T) {
	broken := good + "environments: other: cluster: {name: \"a\"} & {name: \"b\"}\n"
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "p.cue"), []byte(broken), 0o644); err != nil {
		t.Fatal(err)
	}
	folder := load.Folder{FS: os.DirFS(dir), Path: dir}
	res, err := load.Load(folder, []string{"dev"}, nil)
	if err != nil || len(res.Findings) > 0 || len(res.Envs) != 1 || res.Envs[0].Name != "dev" {
		t.Fatalf("dev alone: err %v, findings %v", err, res.Findings)
	}
	if res, err := load.Load(folder, nil, nil); err != nil || len(res.Findings) == 0 {
		t.Fatalf("the whole package must report the conflict: err %v, findings %v", err, res.Findings)
	}

	// A reference to environments: nothing is dropped, the conflict shows.
	ref := broken + "_all: environments\n"
	if err := os.WriteFile(filepath.Join(dir, "p.cue"), []byte(ref), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err = load.Load(folder, []string{"dev"}, nil)
	if err != nil || len(res.Findings) == 0 {
		t.Fatalf("with a reference to environments: err %v, findings %v", err, res.Findings)
	}
}

// TestUnknownFieldInAList: a field the schema does not allow inside a list
// element is a finding at its position (the did-you-mean lookup once
// panicked on the list index of its path).
func TestUnknownFieldInAList(t *testing.T) {
	src := strings.Replace(good, `nodeClasses: default: ami: alias: "al2023@latest"`,
		`nodeClasses: default: {ami: alias: "al2023@latest", subnetSelectorTerms: [{name: "x"}]}`, 1)
	res, err := loadString(t, src)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Findings) != 1 {
		t.Fatalf("findings %+v", res.Findings)
	}
	f := res.Findings[0]
	if f.Message != "nodeClasses.default.subnetSelectorTerms.0.name: field not allowed" || f.Pos.Line != 7 {
		t.Errorf("finding %+v", f)
	}
}
