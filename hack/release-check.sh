#!/usr/bin/env bash
# Check the release script end to end, as make test does: in a clone of
# HEAD tagged v0.99.0 (its own tags removed), the script names a release;
# with an untracked Go file, which go build would compile in, a snapshot
# ("-dirty"); a tag that is not exactly vMAJOR.MINOR.PATCH never names a
# release or an image; then it builds the host platform's binaries and
# SBOMs and the plugin image, and --verify checks SHA256SUMS, each
# archive, the version the host's binary prints and the image's digest; a
# second build gives the same image digest. The other platforms are built
# by the tag's workflow (.github/workflows/release.yml); here karpgen alone
# is built for darwin, the one other OS whose files differ.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
git clone -q --no-local "$root" "$tmp/karpgen"
cd "$tmp/karpgen"
git tag -l | xargs -r git tag -d >/dev/null
git tag v0.99.0

expect() {
	local got
	got=$(bash hack/release.sh --version)
	[ "$got" = "$1" ] || { echo "release-check: hack/release.sh --version says \"$got\", want \"$1\" ($2)" >&2; exit 1; }
}
expect "release v0.99.0" "a clean tagged clone"
printf 'package main\n' >cmd/karpgen/untracked.go
expect "snapshot v0.99.0-dirty" "an untracked Go file"
rm cmd/karpgen/untracked.go
echo "// changed" >>README.md
expect "snapshot v0.99.0-dirty" "a changed tracked file"
git checkout -q README.md
expect "release v0.99.0" "the clean clone again"
git tag v0.99.1-rc.1
expect "release v0.99.0" "a release and a pre-release tag on one commit"
git tag -d v0.99.0 >/dev/null
expect "pre-release v0.99.1-rc.1" "a semver pre-release tag"
git tag -d v0.99.1-rc.1 >/dev/null
sha=$(git rev-parse --short=12 HEAD)
for bad in 'v0.99.0+build.5' 'v0.99.0/x' 'v0.99.0rc1' 'v0.99.0.4' 'v0.99.0;id' 'v01.2.3'; do
	git tag "$bad"
	expect "snapshot v0.0.0-0-g$sha" "the tag $bad"
	git tag -d "$bad" >/dev/null
done
git -c user.name=release-check -c user.email=release-check@example.invalid commit -q --allow-empty -m "after the tag"
git tag v0.99.0 HEAD~1
expect "snapshot v0.99.0-1-g$(git rev-parse --short=12 HEAD)" "a commit after the tag"
git reset -q --hard HEAD~1
expect "release v0.99.0" "the tagged commit again"

host="$(go env GOOS)/$(go env GOARCH)"
export KARPGEN_PLATFORMS=$host

bash hack/release.sh >/dev/null
bash hack/release.sh --verify dist/v0.99.0
# The image is reproducible: a second release of the same commit gives
# the same digest.
first=$(cat dist/v0.99.0/IMAGE)
bash hack/release.sh >/dev/null
[ "$(cat dist/v0.99.0/IMAGE)" = "$first" ] ||
	{ echo "release-check: two builds of the image, two digests: $first and $(cat dist/v0.99.0/IMAGE)" >&2; exit 1; }
echo "release-check: image $first"
# A changed archive is caught.
printf 'x' >>"dist/v0.99.0/karpgen_0.99.0_${host/\//_}.sbom.json"
if bash hack/release.sh --verify dist/v0.99.0 >/dev/null 2>&1; then
	echo "release-check: --verify passed a changed file" >&2
	exit 1
fi
# karpgen's only platform-specific files are its own: it builds for darwin.
CGO_ENABLED=0 GOOS=darwin GOARCH=arm64 go build -trimpath -o /dev/null ./cmd/karpgen
echo "release-check: ok ($host; karpgen for darwin/arm64)"
