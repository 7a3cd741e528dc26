#!/usr/bin/env bash
# Refresh reference/karpenter/ from upstream's release tags.
#
#   hack/refresh-reference.sh [UPSTREAM_CLONE]
#
# UPSTREAM_CLONE is a clone (bare is fine) of
# github.com/aws/karpenter-provider-aws; without it the script makes a bare
# clone in a temporary folder. For every tag in TAGS it copies, from the
# tag's tree:
#   cloudformation.yaml  website/content/en/preview/getting-started/getting-started-with-karpenter/cloudformation.yaml
#   crds/                pkg/apis/crds/
#   chart/               charts/karpenter/
# and from main: compatibility.yaml (hack/docs/compatibilitymatrix_gen/).
# Then it rewrites reference/karpenter/SOURCE: every tag with its commit and
# the SHA-256 of every file. TestReferenceChecksums holds the files to it.
#
# To follow a new minor: add its latest patch to TAGS, run the script, add
# the minor's row to generators/facts/table.go and run `make test`.
set -euo pipefail

TAGS="v0.37.8 v1.0.14 v1.1.10 v1.2.8 v1.3.8 v1.4.4 v1.5.8 v1.6.8 v1.7.6 v1.8.8 v1.9.2 v1.10.2 v1.11.3 v1.12.2 v1.13.1 v1.14.1"
CFN=website/content/en/preview/getting-started/getting-started-with-karpenter/cloudformation.yaml
COMPAT=hack/docs/compatibilitymatrix_gen/compatibility.yaml

root=$(cd "$(dirname "$0")/.." && pwd)
dest="$root/reference/karpenter"
src=${1:-}
if [ -z "$src" ]; then
	src=$(mktemp -d)/karpenter-provider-aws.git
	git clone --bare --quiet https://github.com/aws/karpenter-provider-aws "$src"
fi
git() { command git -C "$src" "$@"; }

# extract TREEISH PATH TARGET: copy a file or a folder of a tree.
extract() {
	local treeish=$1 path=$2 target=$3 strip
	mkdir -p "$target"
	strip=$(awk -F/ '{print NF}' <<<"${path%/}")
	git archive --format=tar "$treeish" "$path" | tar -x -C "$target" --strip-components="$strip"
}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for tag in $TAGS; do
	commit=$(git rev-list -n 1 "$tag")
	out="$tmp/$tag"
	mkdir -p "$out"
	git show "$commit:$CFN" >"$out/cloudformation.yaml"
	extract "$commit" pkg/apis/crds "$out/crds"
	extract "$commit" charts/karpenter "$out/chart"
	cat >"$out/SOURCE.txt" <<TXT
source: github.com/aws/karpenter-provider-aws tag $tag commit $commit
cloudformation.yaml <- $CFN
crds/ <- pkg/apis/crds/ ; chart/ <- charts/karpenter/
TXT
done
main=$(git rev-parse main)
git show "$main:$COMPAT" >"$tmp/compatibility.yaml"

rm -rf "$dest"
mkdir -p "$dest"
cp -r "$tmp"/. "$dest"
"$root/hack/reference-source.sh" "$main"
