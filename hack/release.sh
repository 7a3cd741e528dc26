#!/usr/bin/env bash
# Build a karpgen release into dist/<version>/: the binaries for linux and
# darwin on amd64 and arm64 (each in a .tar.gz with LICENSE-free README),
# an SBOM of each binary (CycloneDX JSON, from the modules Go recorded in
# it), the Config Management Plugin image ghcr.io/karpgen/karpgen-cmp as
# an OCI image layout (karpgen-cmp/, built by hack/cmpimage from the linux
# binaries, on no base image, without a container daemon; IMAGE names it
# by version and digest), and SHA256SUMS over everything.
#
#   make release              # the version is `git describe --tags` of HEAD
#
# A release is made from a clean work tree on a tag (vX.Y.Z); anything
# else is a snapshot, named by git describe, and says so. A tree with a
# change or a file git does not track (an untracked .go file that go build
# compiles in) is "-dirty": git describe --dirty sees only tracked files.
# The binaries are reproducible: -trimpath, no build ID, the commit time as
# mtime.
#
#   hack/release.sh --version      # print what a release would be: its
#                                  # kind (release or snapshot) and version
#   hack/release.sh --verify DIR   # check a release folder: SHA256SUMS,
#                                  # every platform's files, that the
#                                  # host's binary says the folder's version,
#                                  # and that the image is the one IMAGE names
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

# Every platform a release ships; KARPGEN_PLATFORMS narrows a build (and
# its --verify) to some of them, as hack/release-check.sh does on each push.
platforms=${KARPGEN_PLATFORMS:-"linux/amd64 linux/arm64 darwin/amd64 darwin/arm64"}
for platform in $platforms; do
	case $platform in
	linux/amd64 | linux/arm64 | darwin/amd64 | darwin/arm64) ;;
	*) echo "release: KARPGEN_PLATFORMS names $platform, not one of linux/amd64 linux/arm64 darwin/amd64 darwin/arm64" >&2; exit 1 ;;
	esac
done

# verify checks a release folder as a team would before installing it.
verify() {
	local dir=$1 version name goos goarch host
	version=$(basename "$dir")
	(cd "$dir" && sha256sum --quiet --strict -c SHA256SUMS)
	host="$(go env GOOS)_$(go env GOARCH)"
	for platform in $platforms; do
		goos=${platform%/*}
		goarch=${platform#*/}
		name="karpgen_${version#v}_${goos}_${goarch}"
		for f in "$name.tar.gz" "$name.sbom.json" "$name.simulate.sbom.json"; do
			grep -q "  $f\$" "$dir/SHA256SUMS" || { echo "release: $dir/SHA256SUMS does not list $f" >&2; exit 1; }
		done
		tar -tzf "$dir/$name.tar.gz" | grep -qx "$name/karpgen-simulate" ||
			{ echo "release: $name.tar.gz holds no karpgen-simulate" >&2; exit 1; }
		if [ "${goos}_${goarch}" = "$host" ]; then
			local tmp
			tmp=$(mktemp -d)
			tar -xzf "$dir/$name.tar.gz" -C "$tmp"
			local said
			said=$("$tmp/$name/karpgen" version)
			rm -rf "$tmp"
			case $said in
			"karpgen $version "* | "karpgen $version") ;;
			*) echo "release: $name/karpgen version says \"$said\", not $version" >&2; exit 1 ;;
			esac
		fi
	done
	local digest
	digest=$(go run ./hack/cmpimage inspect "$dir/karpgen-cmp" | sed -n 's/^  "digest": "\(sha256:[0-9a-f]*\)",$/\1/p')
	[ "$(cat "$dir/IMAGE")" = "ghcr.io/karpgen/karpgen-cmp:$version@$digest" ] ||
		{ echo "release: IMAGE says $(cat "$dir/IMAGE"), the layout's index is $digest" >&2; exit 1; }
	echo "verified $dir"
}

if [ "${1:-}" = --verify ]; then
	verify "$2"
	exit 0
fi

# The version: a release is HEAD on a tag that is exactly vMAJOR.MINOR.PATCH
# in a clean tree; a pre-release is one on a semver pre-release tag
# (v1.2.0-rc.1). Anything else is a snapshot, named after the newest such
# tag it descends from (v1.2.0-3-gdeadbeef0123), or v0.0.0 when there is
# none: a tag git accepts but an OCI image tag or a file name does not
# (build metadata "+build.5", "/x", ";id", "rc1", ".4") never names one.
num='(0|[1-9][0-9]*)'
pre='(0|[1-9][0-9]*|[0-9]*[A-Za-z-][0-9A-Za-z-]*)'
release_re="^v$num\\.$num\\.$num\$"
prerelease_re="^v$num\\.$num\\.$num-$pre(\\.$pre)*\$"
dirty=""
if [ -n "$(git status --porcelain --untracked-files=all)" ]; then
	dirty="-dirty"
fi
kind="" version=""
if [ -z "$dirty" ]; then
	while read -r tag; do
		if [[ $tag =~ $release_re ]]; then
			kind=release version=$tag
			break
		elif [[ $tag =~ $prerelease_re ]] && [ ${#tag} -le 128 ]; then
			kind=pre-release version=$tag
		fi
	done < <(git tag --points-at HEAD 2>/dev/null | LC_ALL=C sort)
fi
if [ -z "$kind" ]; then
	kind=snapshot base=v0.0.0 count=""
	while read -r tag; do
		if [[ $tag =~ $release_re || $tag =~ $prerelease_re ]] && [ ${#tag} -le 64 ]; then
			base=$tag
			count=$(git rev-list --count "refs/tags/$tag..HEAD")
			break
		fi
	done < <(git tag --merged HEAD --sort=-creatordate 2>/dev/null)
	if [ "$count" = 0 ]; then
		version="$base$dirty"
	else
		sha=$(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
		version="$base-${count:-0}-g$sha$dirty"
	fi
fi
if [ "${1:-}" = --version ]; then
	echo "$kind $version"
	exit 0
fi
out="dist/$version"
rm -rf "$out"
mkdir -p "$out"
epoch=$(git log -1 --format=%ct)
tmpimg=$(mktemp -d)
trap 'rm -rf "$tmpimg"' EXIT
images=""
sbom="$root/bin/cyclonedx-gomod"
[ -x "$sbom" ] || (cd tools && go build -o "$sbom" github.com/CycloneDX/cyclonedx-gomod/cmd/cyclonedx-gomod)
# karpgen-simulate builds from its vendored dependencies, with the order
# of Karpenter's topology spread fixed: one request, one answer.
bash "$root/hack/simulate-vendor.sh"

for platform in $platforms; do
	goos=${platform%/*}
	goarch=${platform#*/}
	name="karpgen_${version#v}_${goos}_${goarch}"
	dir="$out/$name"
	mkdir -p "$dir"
	# -buildvcs stamps the revision into the binary, and -X the version
	# (the tag, or the snapshot's name), which karpgen version prints: Go's
	# own stamp would be a pseudo-version for a tree with untracked files.
	CGO_ENABLED=0 GOOS=$goos GOARCH=$goarch go build -trimpath -buildvcs=true \
		-ldflags="-s -w -buildid= -X main.version=$version" -o "$dir/karpgen" ./cmd/karpgen
	"$sbom" bin -json -output "$out/$name.sbom.json" -version "$version" "$dir/karpgen"
	# karpgen simulate runs karpgen-simulate from beside karpgen: Karpenter's
	# scheduler, a module of its own that needs Go 1.27.
	(cd simulate && CGO_ENABLED=0 GOOS=$goos GOARCH=$goarch GOTOOLCHAIN=go1.27.3 go build -trimpath -buildvcs=true \
		-ldflags="-s -w -buildid=" -o "$root/$dir/karpgen-simulate" ./cmd/karpgen-simulate)
	"$sbom" bin -json -output "$out/$name.simulate.sbom.json" -version "$version" "$dir/karpgen-simulate"
	# The plugin image holds the linux binaries.
	if [ "$goos" = linux ]; then
		mkdir -p "$tmpimg/$goarch"
		cp "$dir/karpgen" "$tmpimg/$goarch/karpgen"
		images="$images linux/$goarch=$tmpimg/$goarch/karpgen"
	fi
	cp README.md "$dir/"
	touch -d "@$epoch" "$dir" "$dir"/*
	tar --sort=name --owner=0 --group=0 --numeric-owner --mtime="@$epoch" -C "$out" -czf "$out/$name.tar.gz" "$name"
	rm -rf "$dir"
done
# shellcheck disable=SC2086 # one word per platform
SOURCE_DATE_EPOCH=$epoch go run ./hack/cmpimage build -o "$out/karpgen-cmp" -version "$version" -plugin deploy/argocd/plugin.yaml $images >"$out/IMAGE"
(cd "$out" && find karpgen-cmp -type f | LC_ALL=C sort | xargs sha256sum -- *.tar.gz *.sbom.json IMAGE >SHA256SUMS)
echo "$kind $version in $out:"
ls -1 "$out"
echo "the plugin image: $(cat "$out/IMAGE") (push the layout with: crane push $out/karpgen-cmp ghcr.io/karpgen/karpgen-cmp:$version)"
