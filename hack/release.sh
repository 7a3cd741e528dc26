#!/usr/bin/env bash
# Build a karpgen release into dist/<version>/: the binaries for linux and
# darwin on amd64 and arm64 (each in a .tar.gz with LICENSE-free README),
# an SBOM of each binary (CycloneDX JSON, from the modules Go recorded in
# it), the linux binaries again under image/ for the Config Management
# Plugin image (deploy/argocd/Dockerfile, on no base image), SHA256SUMS
# over everything, and the name of that image, tagged with the version.
#
#   make release              # the version is `git describe --tags` of HEAD
#
# A release is made from a clean work tree on a tag (vX.Y.Z); anything
# else is a snapshot, named by git describe, and says so. The binaries
# are reproducible: -trimpath, no build ID, the commit time as mtime.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
version=$(git describe --tags --always --dirty 2>/dev/null || echo "v0.0.0-unknown")
case $version in
v[0-9]*.[0-9]*.[0-9]*) case $version in *-*) kind=snapshot ;; *) kind=release ;; esac ;;
*) kind=snapshot ;;
esac
out="dist/$version"
rm -rf "$out"
mkdir -p "$out"
epoch=$(git log -1 --format=%ct)
sbom="$root/bin/cyclonedx-gomod"
[ -x "$sbom" ] || (cd tools && go build -o "$sbom" github.com/CycloneDX/cyclonedx-gomod/cmd/cyclonedx-gomod)

for platform in linux/amd64 linux/arm64 darwin/amd64 darwin/arm64; do
	goos=${platform%/*}
	goarch=${platform#*/}
	name="karpgen_${version#v}_${goos}_${goarch}"
	dir="$out/$name"
	mkdir -p "$dir"
	# -buildvcs stamps the version (the tag) and revision into the binary,
	# which karpgen version prints.
	CGO_ENABLED=0 GOOS=$goos GOARCH=$goarch go build -trimpath -buildvcs=true \
		-ldflags="-s -w -buildid=" -o "$dir/karpgen" ./cmd/karpgen
	"$sbom" bin -json -output "$out/$name.sbom.json" -version "$version" "$dir/karpgen" 2>/dev/null
	# karpgen simulate runs karpgen-simulate from beside karpgen: Karpenter's
	# scheduler, a module of its own that needs Go 1.27.
	(cd simulate && CGO_ENABLED=0 GOOS=$goos GOARCH=$goarch GOTOOLCHAIN=go1.27.3 go build -trimpath -buildvcs=true \
		-ldflags="-s -w -buildid=" -o "$dir/karpgen-simulate" ./cmd/karpgen-simulate)
	"$sbom" bin -json -output "$out/$name.simulate.sbom.json" -version "$version" "$dir/karpgen-simulate" 2>/dev/null
	# The plugin image (deploy/argocd/Dockerfile) copies the linux binaries.
	if [ "$goos" = linux ]; then
		mkdir -p "$out/image/linux/$goarch"
		cp "$dir/karpgen" "$out/image/linux/$goarch/karpgen"
		touch -d "@$epoch" "$out/image/linux/$goarch/karpgen"
	fi
	cp README.md "$dir/"
	touch -d "@$epoch" "$dir" "$dir"/*
	tar --sort=name --owner=0 --group=0 --numeric-owner --mtime="@$epoch" -C "$out" -czf "$out/$name.tar.gz" "$name"
	rm -rf "$dir"
done
image="karpgen-cmp:$version"
echo "$image" >"$out/IMAGE"
(cd "$out" && sha256sum -- *.tar.gz *.sbom.json image/linux/*/karpgen IMAGE >SHA256SUMS)
echo "$kind $version in $out:"
ls -1 "$out"
echo "build the plugin image with: docker buildx build -f deploy/argocd/Dockerfile --platform linux/amd64,linux/arm64 --build-arg VERSION=$version -t <registry>/$image ."
