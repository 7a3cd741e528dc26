package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/v1/layout"
)

// TestImageIsReproducibleAndAsTheDockerfileSays: the same binaries and
// time give the same digest, another time another; the image written to
// an OCI layout reads back with its entrypoint, user, PATH and labels,
// and holds exactly the binary and the plugin configuration (no shell),
// where deploy/argocd/Dockerfile puts them.
func TestImageIsReproducibleAndAsTheDockerfileSays(t *testing.T) {
	plugin, err := os.ReadFile(filepath.Join("..", "..", "deploy", "argocd", "plugin.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	bins := map[string][]byte{"linux/amd64": []byte("\x7fELF amd64 karpgen"), "linux/arm64": []byte("\x7fELF arm64 karpgen")}
	at := time.Unix(1738368000, 0).UTC()
	digest := func(when time.Time) string {
		idx, err := Build(bins, plugin, "v1.2.3", when)
		if err != nil {
			t.Fatal(err)
		}
		d, err := idx.Digest()
		if err != nil {
			t.Fatal(err)
		}
		return d.String()
	}
	first, second := digest(at), digest(at)
	if first != second {
		t.Fatalf("two builds, two digests: %s %s", first, second)
	}
	if other := digest(at.Add(time.Second)); other == first {
		t.Fatalf("another SOURCE_DATE_EPOCH, the same digest %s", first)
	}

	dir := filepath.Join(t.TempDir(), "oci")
	t.Setenv("SOURCE_DATE_EPOCH", "1738368000")
	var out bytes.Buffer
	args := []string{"build", "-o", dir, "-version", "v1.2.3", "-plugin", filepath.Join("..", "..", "deploy", "argocd", "plugin.yaml")}
	for _, p := range []string{"linux/amd64", "linux/arm64"} {
		f := filepath.Join(t.TempDir(), "karpgen")
		if err := os.WriteFile(f, bins[p], 0o755); err != nil {
			t.Fatal(err)
		}
		args = append(args, p+"="+f)
	}
	if err := run(args, &out); err != nil {
		t.Fatal(err)
	}
	if want := "ghcr.io/karpgen/karpgen-cmp:v1.2.3@" + first + "\n"; out.String() != want {
		t.Errorf("build printed %q, want %q", out.String(), want)
	}
	idx, err := layout.ImageIndexFromPath(dir)
	if err != nil {
		t.Fatal(err)
	}
	if d, _ := idx.Digest(); d.String() != first {
		t.Errorf("the layout's index is %s, the build's %s", d, first)
	}
	for p, bin := range bins {
		img, err := ImageOf(dir, p)
		if err != nil {
			t.Fatal(err)
		}
		cfg, err := img.ConfigFile()
		if err != nil {
			t.Fatal(err)
		}
		c := cfg.Config
		if !slices.Equal(c.Entrypoint, []string{Entrypoint}) || c.User != User || !slices.Equal(c.Env, []string{"PATH=/usr/local/bin"}) ||
			c.Labels["org.opencontainers.image.version"] != "v1.2.3" || !cfg.Created.Time.Equal(at) || cfg.Architecture != strings.TrimPrefix(p, "linux/") {
			t.Errorf("%s: config %+v created %s arch %s", p, c, cfg.Created, cfg.Architecture)
		}
		files, err := Files(img)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for n := range files {
			names = append(names, n)
		}
		slices.Sort(names)
		if !slices.Equal(names, []string{PluginPath, BinaryPath}) || !bytes.Equal(files[BinaryPath], bin) || !bytes.Equal(files[PluginPath], plugin) {
			t.Errorf("%s: files %v", p, names)
		}
	}
	extracted := filepath.Join(t.TempDir(), "karpgen")
	if err := run([]string{"extract", "-platform", "linux/arm64", "-o", extracted, dir}, &out); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(extracted); !bytes.Equal(got, bins["linux/arm64"]) {
		t.Errorf("extracted %q", got)
	}

	// The Dockerfile, which a team with a daemon may build instead, says
	// the same.
	df, err := os.ReadFile(filepath.Join("..", "..", "deploy", "argocd", "Dockerfile"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"FROM scratch", "/" + BinaryPath + "\n", "/" + PluginPath + "\n", "ENV PATH=/usr/local/bin\n", "USER " + User + "\n",
		`ENTRYPOINT ["` + Entrypoint + `"]`,
	} {
		if !strings.Contains(string(df), want) {
			t.Errorf("deploy/argocd/Dockerfile does not say %q", want)
		}
	}
	// The manifests name the image the release publishes, by version.
	for _, f := range []string{"repo-server-patch.yaml", "argocd-helm-values.yaml"} {
		data, err := os.ReadFile(filepath.Join("..", "..", "deploy", "argocd", f))
		if err != nil {
			t.Fatal(err)
		}
		if !regexp.MustCompile(`image: `+regexp.QuoteMeta(Repository)+`:v\d+\.\d+\.\d+`).Match(data) || regexp.MustCompile(`image: \S+:latest\b`).Match(data) {
			t.Errorf("%s does not name %s:vX.Y.Z", f, Repository)
		}
	}
}

// TestBuildRefuses: a build without SOURCE_DATE_EPOCH, or into a folder
// that exists, is refused.
func TestBuildRefuses(t *testing.T) {
	t.Setenv("SOURCE_DATE_EPOCH", "")
	var out bytes.Buffer
	err := run([]string{"build", "-o", t.TempDir(), "-version", "v1", "linux/amd64=x"}, &out)
	if err == nil || !strings.Contains(err.Error(), "SOURCE_DATE_EPOCH is not set") {
		t.Errorf("err %v", err)
	}
	t.Setenv("SOURCE_DATE_EPOCH", "1")
	bin := filepath.Join(t.TempDir(), "karpgen")
	os.WriteFile(bin, []byte("x"), 0o755)
	err = run([]string{"build", "-o", t.TempDir(), "-version", "v1", "-plugin", filepath.Join("..", "..", "deploy", "argocd", "plugin.yaml"), "linux/amd64=" + bin}, &out)
	if err == nil || !strings.Contains(err.Error(), "exists") {
		t.Errorf("err %v", err)
	}
}
