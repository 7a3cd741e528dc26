package load_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/karpgen/karpgen/internal/load"
)

// prunePackage builds a profile package from fuzz bytes: fields, hidden
// fields, definitions and let clauses declared at the top level and
// inside `environments`, some shadowing others, and two environments
// whose hop limit is an expression over them, each written in the
// struct or in a declaration of its own.
func prunePackage(data []byte) string {
	names := []string{"_h", "h", "x", "_x", "dev", "prod", "#D"}
	exprs := []string{"_h", "h", "x", "_x", "#D.n", "L", "1", "prod._k", "dev._k"}
	next := func() int {
		if len(data) == 0 {
			return 0
		}
		b := int(data[0])
		data = data[1:]
		return b
	}
	decl := func() string {
		n := names[next()%len(names)]
		k := next()%3 + 1
		switch {
		case n == "#D":
			return fmt.Sprintf("#D: n: %d", k)
		case n == "dev" || n == "prod":
			return fmt.Sprintf("%s: _k: %d", n, k)
		}
		return fmt.Sprintf("%s: %d", n, k)
	}
	var b strings.Builder
	b.WriteString("package profiles\n\n_base: {\n" + baseBody + "}\n")
	for range next() % 4 {
		b.WriteString(decl() + "\n")
	}
	b.WriteString("environments: {\n")
	for range next() % 4 {
		if next()%4 == 0 {
			fmt.Fprintf(&b, "\tlet L = %d\n", next()%3+1)
			continue
		}
		d := decl()
		if strings.HasPrefix(d, "dev:") || strings.HasPrefix(d, "prod:") {
			continue
		}
		b.WriteString("\t" + d + "\n")
	}
	// Each environment in the struct, in the struct with a comma in the
	// source, or in a declaration of its own.
	var own strings.Builder
	for _, env := range []string{"dev", "prod"} {
		field := fmt.Sprintf("%s: _base & {_k: 1, cluster: name: \"ws-%s\", nodeClasses: default: metadataOptions: httpPutResponseHopLimit: %s}",
			env, env, exprs[next()%len(exprs)])
		switch next() % 3 {
		case 0:
			b.WriteString("\t" + field + "\n")
		case 1:
			b.WriteString("\t" + field + ", _c: 1\n")
		default:
			own.WriteString("environments: " + field + "\n")
		}
	}
	b.WriteString("}\n" + own.String())
	return b.String()
}

const baseBody = `	cluster: {region: "ap-northeast-2", accountID: "491085395789", kubernetesVersion: "1.32"}
	karpenter: {version: "1.2.3", controller: nodeGroup: "system"}
	nodeGroups: system: labels: nodegroup: "system"
	nodeClasses: default: ami: alias: "al2023@latest"
	nodePools: app: zones: ["ap-northeast-2a"]
`

// outcome is what a load says of one environment: its decoded profile,
// or its findings' messages.
func outcome(res *load.Result, env string) string {
	for _, e := range res.Envs {
		if e.Name == env {
			j, _ := json.Marshal(e.Profile)
			return string(j)
		}
	}
	var msgs []string
	for _, f := range res.Findings {
		if f.Env == env || f.Env == "" {
			msgs = append(msgs, f.Message)
		}
	}
	slices.Sort(msgs)
	return strings.Join(msgs, "\n")
}

// FuzzPruneKeepsValues: an environment loaded alone (as build and
// `render ENV` load it) is exactly what it is in the whole package (as
// render and render --check load it), whatever the package shadows.
func FuzzPruneKeepsValues(f *testing.F) {
	f.Add([]byte{1, 0, 0, 1, 1, 0, 0, 0, 0})       // _h at the top level, read by dev
	f.Add([]byte{1, 0, 1, 1, 1, 0, 2, 0, 0})       // _h in both places
	f.Add([]byte{0, 1, 3, 4, 1, 0, 0, 0, 0})       // a let clause
	f.Add([]byte{1, 5, 2, 1, 1, 1, 0, 7, 8})       // environments read each other
	f.Add([]byte{2, 6, 1, 1, 2, 1, 6, 0, 4, 4, 4}) // definitions
	f.Fuzz(func(t *testing.T, data []byte) {
		src := prunePackage(data)
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "p.cue"), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		folder := load.Folder{FS: os.DirFS(dir), Path: dir}
		all, err := load.Load(folder, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range all.Findings {
			if f.Env == "" {
				return // the package as a whole is refused
			}
		}
		for _, env := range []string{"dev", "prod"} {
			one, err := load.Load(folder, []string{env}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if got, want := outcome(one, env), outcome(all, env); got != want {
				t.Errorf("%s alone differs from the whole package\n%s\nalone: %s\nwhole: %s", env, src, got, want)
			}
		}
	})
}
