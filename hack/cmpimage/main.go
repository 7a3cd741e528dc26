// Command cmpimage builds the Config Management Plugin sidecar image,
// ghcr.io/karpgen/karpgen-cmp, as an OCI image layout, without a
// container daemon: for each platform one layer holding karpgen's
// release binary and deploy/argocd/plugin.yaml, on no base image, user
// 999, no shell, argocd-cmp-server (mounted from the repo-server) as its
// entrypoint; every time in it is SOURCE_DATE_EPOCH, so the same binaries
// give the same digest.
//
//	go run ./hack/cmpimage build -o DIR -version vX.Y.Z -plugin deploy/argocd/plugin.yaml \
//	    linux/amd64=dist/.../karpgen linux/arm64=dist/.../karpgen
//	go run ./hack/cmpimage extract -platform linux/amd64 -o FILE DIR   # the binary back out
//	go run ./hack/cmpimage inspect DIR                                 # digest and config, as JSON
//	REGISTRY_USER=u REGISTRY_PASSWORD=p go run ./hack/cmpimage push DIR REF   # the layout to a registry
package main

import (
	"archive/tar"
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// Where the image puts its files, and how it runs: as the Dockerfile of
// deploy/argocd says it, which the tests hold it to.
const (
	BinaryPath = "usr/local/bin/karpgen"
	PluginPath = "home/argocd/cmp-server/config/plugin.yaml"
	Entrypoint = "/var/run/argocd/argocd-cmp-server"
	User       = "999:999"
	Repository = "ghcr.io/karpgen/karpgen-cmp"
	Source     = "https://github.com/karpgen/karpgen"
)

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "cmpimage:", err)
		os.Exit(1)
	}
}

func run(args []string, stdout io.Writer) error {
	if len(args) == 0 {
		return errors.New("usage: cmpimage build|extract|inspect|push ARGS")
	}
	switch args[0] {
	case "build":
		fs := flag.NewFlagSet("build", flag.ContinueOnError)
		out := fs.String("o", "", "the OCI image layout folder to write (must not exist)")
		version := fs.String("version", "", "the release version the image is of")
		plugin := fs.String("plugin", "deploy/argocd/plugin.yaml", "the plugin's configuration")
		if err := fs.Parse(args[1:]); err != nil {
			return err
		}
		if *out == "" || *version == "" || fs.NArg() == 0 {
			return errors.New("usage: cmpimage build -o DIR -version V [-plugin FILE] OS/ARCH=BINARY [OS/ARCH=BINARY]")
		}
		epoch, err := sourceDateEpoch()
		if err != nil {
			return err
		}
		pluginYAML, err := os.ReadFile(*plugin)
		if err != nil {
			return err
		}
		binaries := map[string][]byte{}
		for _, a := range fs.Args() {
			platform, file, ok := strings.Cut(a, "=")
			if !ok {
				return fmt.Errorf("%q: give OS/ARCH=BINARY", a)
			}
			if binaries[platform], err = os.ReadFile(file); err != nil {
				return err
			}
		}
		idx, err := Build(binaries, pluginYAML, *version, epoch)
		if err != nil {
			return err
		}
		if _, err := os.Stat(*out); err == nil {
			return fmt.Errorf("%s exists: the layout is written to a new folder", *out)
		}
		if _, err := layout.Write(*out, idx); err != nil {
			return err
		}
		d, err := idx.Digest()
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(stdout, "%s@%s\n", Repository+":"+*version, d)
		return err
	case "extract":
		fs := flag.NewFlagSet("extract", flag.ContinueOnError)
		platform := fs.String("platform", "linux/amd64", "the image of which platform")
		out := fs.String("o", "", "where to write the binary")
		if err := fs.Parse(args[1:]); err != nil {
			return err
		}
		if *out == "" || fs.NArg() != 1 {
			return errors.New("usage: cmpimage extract -platform OS/ARCH -o FILE DIR")
		}
		img, err := ImageOf(fs.Arg(0), *platform)
		if err != nil {
			return err
		}
		files, err := Files(img)
		if err != nil {
			return err
		}
		bin, ok := files[BinaryPath]
		if !ok {
			return fmt.Errorf("the %s image holds no %s", *platform, BinaryPath)
		}
		return os.WriteFile(*out, bin, 0o755)
	case "push":
		if len(args) != 3 {
			return errors.New("usage: cmpimage push DIR REGISTRY/REPOSITORY:TAG")
		}
		idx, err := layout.ImageIndexFromPath(args[1])
		if err != nil {
			return err
		}
		ref, err := name.NewTag(args[2], name.StrictValidation)
		if err != nil {
			return err
		}
		user, password := os.Getenv("REGISTRY_USER"), os.Getenv("REGISTRY_PASSWORD")
		if user == "" || password == "" {
			return errors.New("REGISTRY_USER and REGISTRY_PASSWORD name who pushes")
		}
		if err := remote.WriteIndex(ref, idx, remote.WithAuth(&authn.Basic{Username: user, Password: password})); err != nil {
			return err
		}
		d, err := idx.Digest()
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(stdout, "%s@%s\n", ref, d)
		return err
	case "inspect":
		if len(args) != 2 {
			return errors.New("usage: cmpimage inspect DIR")
		}
		idx, err := layout.ImageIndexFromPath(args[1])
		if err != nil {
			return err
		}
		d, err := idx.Digest()
		if err != nil {
			return err
		}
		m, err := idx.IndexManifest()
		if err != nil {
			return err
		}
		out := map[string]any{"digest": d.String()}
		for _, desc := range m.Manifests {
			img, err := idx.Image(desc.Digest)
			if err != nil {
				return err
			}
			cfg, err := img.ConfigFile()
			if err != nil {
				return err
			}
			out[desc.Platform.OS+"/"+desc.Platform.Architecture] = map[string]any{"digest": desc.Digest.String(), "config": cfg.Config, "created": cfg.Created.UTC()}
		}
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(out)
	}
	return fmt.Errorf("unknown command %q: build, extract, inspect or push", args[0])
}

// sourceDateEpoch is the image's one time: SOURCE_DATE_EPOCH, as the
// release script sets it from the tagged commit.
func sourceDateEpoch() (time.Time, error) {
	s := os.Getenv("SOURCE_DATE_EPOCH")
	if s == "" {
		return time.Time{}, errors.New("SOURCE_DATE_EPOCH is not set: the image's times come from it, so that a build is reproducible")
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return time.Time{}, fmt.Errorf("SOURCE_DATE_EPOCH %q: %v", s, err)
	}
	return time.Unix(n, 0).UTC(), nil
}

// Build is the multi-platform image: one image per "os/arch" binary.
func Build(binaries map[string][]byte, plugin []byte, version string, created time.Time) (v1.ImageIndex, error) {
	platforms := make([]string, 0, len(binaries))
	for p := range binaries {
		platforms = append(platforms, p)
	}
	sort.Strings(platforms)
	var idx v1.ImageIndex = mutate.IndexMediaType(empty.Index, types.OCIImageIndex)
	for _, p := range platforms {
		osName, arch, ok := strings.Cut(p, "/")
		if !ok || osName != "linux" {
			return nil, fmt.Errorf("platform %q: the sidecar runs on linux/ARCH", p)
		}
		img, err := image(binaries[p], plugin, version, arch, created)
		if err != nil {
			return nil, err
		}
		idx = mutate.AppendManifests(idx, mutate.IndexAddendum{Add: img, Descriptor: v1.Descriptor{Platform: &v1.Platform{OS: osName, Architecture: arch}}})
	}
	return idx, nil
}

// image is the image of one platform.
func image(binary, plugin []byte, version, arch string, created time.Time) (v1.Image, error) {
	data, err := layerTar(binary, plugin, created)
	if err != nil {
		return nil, err
	}
	layer, err := tarball.LayerFromOpener(func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(data)), nil },
		tarball.WithMediaType(types.OCILayer))
	if err != nil {
		return nil, err
	}
	img := mutate.MediaType(empty.Image, types.OCIManifestSchema1)
	img = mutate.ConfigMediaType(img, types.OCIConfigJSON)
	img, err = mutate.Append(img, mutate.Addendum{Layer: layer, History: v1.History{Created: v1.Time{Time: created}, CreatedBy: "karpgen hack/cmpimage", Comment: "karpgen and its plugin configuration"}})
	if err != nil {
		return nil, err
	}
	cfg, err := img.ConfigFile()
	if err != nil {
		return nil, err
	}
	cfg = cfg.DeepCopy()
	cfg.OS, cfg.Architecture, cfg.Created = "linux", arch, v1.Time{Time: created}
	cfg.Config = v1.Config{
		Entrypoint: []string{Entrypoint},
		User:       User,
		Env:        []string{"PATH=/usr/local/bin"},
		Labels: map[string]string{
			"org.opencontainers.image.title":   "karpgen-cmp",
			"org.opencontainers.image.version": version,
			"org.opencontainers.image.source":  Source,
		},
	}
	return mutate.ConfigFile(img, cfg)
}

// layerTar is the one layer: the binary and the plugin configuration
// with their folders, owned by root and readable by user 999, at the
// image's one time.
func layerTar(binary, plugin []byte, created time.Time) ([]byte, error) {
	var b bytes.Buffer
	tw := tar.NewWriter(&b)
	files := []struct {
		name string
		mode int64
		body []byte
	}{{BinaryPath, 0o755, binary}, {PluginPath, 0o644, plugin}}
	dirs := map[string]bool{}
	for _, f := range files {
		for d := path.Dir(f.name); d != "."; d = path.Dir(d) {
			dirs[d] = true
		}
	}
	dirs["tmp"] = true
	names := make([]string, 0, len(dirs))
	for d := range dirs {
		names = append(names, d)
	}
	sort.Strings(names)
	for _, d := range names {
		mode := int64(0o755)
		if d == "tmp" {
			mode = 0o1777
		}
		if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: d + "/", Mode: mode, ModTime: created, Format: tar.FormatPAX}); err != nil {
			return nil, err
		}
	}
	for _, f := range files {
		if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: f.name, Mode: f.mode, Size: int64(len(f.body)), ModTime: created, Format: tar.FormatPAX}); err != nil {
			return nil, err
		}
		if _, err := tw.Write(f.body); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// ImageOf is the image of a platform in a layout.
func ImageOf(dir, platform string) (v1.Image, error) {
	idx, err := layout.ImageIndexFromPath(dir)
	if err != nil {
		return nil, err
	}
	m, err := idx.IndexManifest()
	if err != nil {
		return nil, err
	}
	for _, desc := range m.Manifests {
		if desc.Platform != nil && desc.Platform.OS+"/"+desc.Platform.Architecture == platform {
			return idx.Image(desc.Digest)
		}
	}
	return nil, fmt.Errorf("%s holds no image for %s", dir, platform)
}

// Files are the regular files of an image's layers, by path.
func Files(img v1.Image) (map[string][]byte, error) {
	rc := mutate.Extract(img)
	defer rc.Close()
	tr := tar.NewReader(rc)
	out := map[string][]byte{}
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		if h.Typeflag != tar.TypeReg {
			continue
		}
		body, err := io.ReadAll(tr)
		if err != nil {
			return nil, err
		}
		out[strings.TrimPrefix(h.Name, "/")] = body
	}
}
