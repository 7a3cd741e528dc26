#!/usr/bin/env bash
# Check the release script end to end, as make test does: in a clone of
# HEAD tagged v0.99.0 (its own tags removed), the script names a release;
# with an untracked Go file, which go build would compile in, a snapshot
# ("-dirty"); then it builds every platform's binaries and SBOMs and the
# plugin image, and --verify checks SHA256SUMS, each archive, the version
# the host's binary prints and the image's digest; a second build gives
# the same image digest.
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
printf 'x' >>dist/v0.99.0/karpgen_0.99.0_linux_arm64.sbom.json
if bash hack/release.sh --verify dist/v0.99.0 >/dev/null 2>&1; then
	echo "release-check: --verify passed a changed file" >&2
	exit 1
fi
echo "release-check: ok"
