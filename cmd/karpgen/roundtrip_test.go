package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/karpgen/karpgen/internal/facts"
	"github.com/karpgen/karpgen/internal/templates"
)

var (
	versionLine = regexp.MustCompile(`version: +"[0-9.]+"`)
	kubeLine    = regexp.MustCompile(`kubernetesVersion: +"[0-9.]+"`)
	aliasLine   = regexp.MustCompile(`alias: "al2023@latest"`)
)

// TestImportRoundTrip: for every template, every minor and every AMI
// family that minor's EC2NodeClass accepts, a profile rendered, its NodePools, EC2NodeClasses and Helm
// values imported, and the imported profile rendered again gives the
// same three files byte for byte. This is what makes import trustworthy:
// it neither loses nor changes a field karpgen writes.
func TestImportRoundTrip(t *testing.T) {
	if testing.Short() {
		t.Skip("renders every template at every minor")
	}
	cases := 0
	for _, tmpl := range templates.Names() {
		for _, m := range facts.Minors {
			for _, family := range m.AMIFamilies {
				kube := m.Kubernetes[1]
				if max, ok := facts.AMIKubernetesMax[family]; ok && facts.MinorLess(max, kube) {
					kube = max
				}
				version := strings.TrimPrefix(m.Reference, "v")
				name := fmt.Sprintf("%s/%s/%s", tmpl, m.Minor, family)
				t.Run(name, func(t *testing.T) {
					roundTrip(t, tmpl, version, kube, family)
				})
				cases++
			}
		}
	}
	if cases < 250 {
		t.Errorf("only %d cases", cases)
	}
}

func roundTrip(t *testing.T, tmpl, version, kube, family string) {
	t.Chdir(t.TempDir())
	karpgen := func(args ...string) string {
		t.Helper()
		var stdout, stderr bytes.Buffer
		if code := run(args, &stdout, &stderr); code != 0 {
			t.Fatalf("karpgen %s: exit %d\n%s%s", strings.Join(args, " "), code, stdout.String(), stderr.String())
		}
		return stderr.String()
	}
	karpgen("init", "--template", tmpl, "--name", "shop", "--region", "eu-west-1", "--account", "111122223333")
	src, err := os.ReadFile("profiles/profiles.cue")
	if err != nil {
		t.Fatal(err)
	}
	src = versionLine.ReplaceAll(src, []byte(`version: "`+version+`"`))
	src = kubeLine.ReplaceAll(src, []byte(`kubernetesVersion: "`+kube+`"`))
	src = aliasLine.ReplaceAll(src, []byte(`alias: "`+family+`@latest"`))
	if err := os.WriteFile("profiles/profiles.cue", src, 0o644); err != nil {
		t.Fatal(err)
	}
	karpgen("render", "dev")
	karpgen("import", "out/dev/nodepools.yaml", "out/dev/ec2nodeclasses.yaml", "--values", "out/dev/helm/karpenter-values.yaml",
		"--env", "dev", "--cluster", "shop-dev", "--region", "eu-west-1", "--account", "111122223333",
		"--karpenter-version", version, "--kubernetes-version", kube, "--output-file", "back/profiles/imported.cue")
	karpgen("render", "--profiles", "back/profiles", "--out", "back/out")
	for _, f := range []string{"nodepools.yaml", "ec2nodeclasses.yaml", "helm/karpenter-values.yaml"} {
		want, err := os.ReadFile(filepath.Join("out", "dev", f))
		if err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(filepath.Join("back", "out", "dev", f))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s differs after the round trip:\n--- rendered\n%s\n--- imported and rendered again\n%s", f, want, got)
		}
	}
}
