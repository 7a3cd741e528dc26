#!/usr/bin/env bash
# Refresh reference/karpenter/ from upstream's releases.
#
#   hack/refresh-reference.sh [UPSTREAM_CLONE]
#   hack/refresh-reference.sh --module VERSION [CLOUDFORMATION|vX.Y.Z]
#
# The first form reads release tags. UPSTREAM_CLONE is a clone (bare is fine)
# of github.com/aws/karpenter-provider-aws; without it the script makes a bare
# clone in a temporary folder. For every tag in TAGS it copies, from the
# tag's tree:
#   cloudformation.yaml  website/content/en/preview/getting-started/getting-started-with-karpenter/cloudformation.yaml
#   crds/                pkg/apis/crds/
#   chart/               charts/karpenter/
# and from main: compatibility.yaml (hack/docs/compatibilitymatrix_gen/).
# For every tag in GETTING_STARTED_TAGS (the 0.x releases before the
# oldest in TAGS) it copies only the getting-started template, into
# gettingstarted-<tag>/: the stacks clusters of those releases were made
# with, which the CloudFormation preview is held to. At a 0.x patch tag
# the release's own template is website/content/en/v0.MM/..., or docs/
# where that folder is not there yet (preview/ is already the next
# minor's).
# From MIGRATION_TAG it copies the v1beta1 migration guide's controller
# policy (MIGRATION_POLICY) and the chart into migration-<tag>/: the
# policy the guide attaches beside the v1alpha5 one and the chart of the
# release that serves both APIs, which `upgrade --from 0.31` plans.
#
# The second form reads one release from the Go module proxy, which needs no
# clone: `go mod download` fetches github.com/aws/karpenter-provider-aws at
# VERSION, and crds/ and chart/ come out of its zip (chart/crds/ are copies of
# crds/, as `helm package` makes them of upstream's symlinks), and go.mod
# (the Kubernetes and kubelet versions the release builds against). The module
# holds no website, so cloudformation.yaml is taken from the file named
# CLOUDFORMATION when given (the release's getting-started template), from
# the earlier reference release vX.Y.Z of the same minor as the repository's
# history holds it (a patch that left the IAM alone), and is left out
# otherwise; SOURCE.txt says which. The folder replaces the minor's
# older patch folder. SOURCE.txt records the module version and the zip's
# hash (the go.sum h1: line).
#
# Each form also writes operations.txt beside a release's files: the AWS API
# operations its controller's code calls, which `go generate ./hack/operations`
# derives from the source the file's header names (the module zip, or the
# tag's commit in a checkout under $KARPGEN_UPSTREAM).
#
# Every form then rewrites reference/karpenter/SOURCE: every release with
# its commit or module hash and the SHA-256 of every file.
# TestReferenceChecksums holds the files to it.
#
# The whole recipe for a new minor or patch, of which this is the first
# step, is docs/maintaining.md.
set -euo pipefail

TAGS="v0.37.8 v1.0.14 v1.1.10 v1.2.8 v1.3.8 v1.4.4 v1.5.8 v1.6.8 v1.7.6 v1.8.8 v1.9.3 v1.10.2 v1.11.3 v1.12.2 v1.13.1 v1.14.3 v1.15.2"
CFN=website/content/en/preview/getting-started/getting-started-with-karpenter/cloudformation.yaml
COMPAT=hack/docs/compatibilitymatrix_gen/compatibility.yaml
GETTING_STARTED_TAGS="v0.31.4 v0.32.10 v0.33.12 v0.34.13 v0.35.12 v0.36.9"
MIGRATION_TAG=v0.32.10
MIGRATION_POLICY=website/content/en/v0.32/upgrading/v1beta1-controller-policy.json

root=$(cd "$(dirname "$0")/.." && pwd)
dest="$root/reference/karpenter"
# extract TREEISH PATH TARGET: copy a file or a folder of a tree.
extract() {
	local treeish=$1 path=$2 target=$3 strip
	mkdir -p "$target"
	strip=$(awk -F/ '{print NF}' <<<"${path%/}")
	git archive --format=tar "$treeish" "$path" | tar -x -C "$target" --strip-components="$strip"
}

# fromModule VERSION [CLOUDFORMATION]: one release out of the module zip.
fromModule() {
	local version=$1 cfn=${2:-} info zip sum prefix out minor old rev
	info=$(GOTOOLCHAIN=local GOFLAGS=-mod=mod go mod download -json "github.com/aws/karpenter-provider-aws@$version" || true)
	zip=$(sed -n 's/^[[:space:]]*"Zip": "\(.*\)",$/\1/p' <<<"$info")
	sum=$(sed -n 's/^[[:space:]]*"Sum": "\(.*\)",$/\1/p' <<<"$info")
	# A release that asks for a newer Go than this machine's still downloads;
	# only a missing zip is an error.
	if [ -z "$zip" ] || [ ! -f "$zip" ]; then
		echo "refresh-reference: the module proxy did not serve $version" >&2
		sed -n 's/^[[:space:]]*"Error": "\(.*\)",$/\1/p' <<<"$info" >&2
		exit 1
	fi
	prefix="github.com/aws/karpenter-provider-aws@$version"
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	(cd "$tmp" && unzip -q "$zip" "$prefix/pkg/apis/crds/*" "$prefix/charts/karpenter/*" "$prefix/go.mod")
	out="$tmp/$version"
	mkdir -p "$out"
	cp -r "$tmp/$prefix/pkg/apis/crds" "$out/crds"
	cp -r "$tmp/$prefix/charts/karpenter" "$out/chart"
	rm -rf "$out/chart/crds"
	cp -r "$out/crds" "$out/chart/crds"
	cp "$tmp/$prefix/go.mod" "$out/go.mod"
	# The header names the source; go generate fills in the operations.
	printf '# The AWS API operations the controller calls,\n# from module github.com/aws/karpenter-provider-aws@%s zip %s; do not edit.\n' "$version" "$sum" >"$out/operations.txt"
	{
		echo "source: go module github.com/aws/karpenter-provider-aws@$version zip $sum"
		echo "crds/ <- pkg/apis/crds/ ; chart/ <- charts/karpenter/ ; chart/crds/ = copies of crds/ (the zip drops upstream's symlinks) ; go.mod <- go.mod"
		if [[ $cfn == v* ]]; then
			# The template of an earlier patch of the minor, as the
			# repository's history holds it.
			rev=$(command git -C "$root" log -1 --format=%H -- "reference/karpenter/$cfn/cloudformation.yaml")
			[ -n "$rev" ] || { echo "refresh-reference: no reference release $cfn in the history" >&2; exit 1; }
			# The last commit that touched it either holds it or deleted it.
			command git -C "$root" cat-file -e "$rev:reference/karpenter/$cfn/cloudformation.yaml" 2>/dev/null || rev="$rev^"
			command git -C "$root" show "$rev:reference/karpenter/$cfn/cloudformation.yaml" >"$out/cloudformation.yaml"
			echo "cloudformation.yaml <- $(command git -C "$root" show "$rev:reference/karpenter/$cfn/SOURCE.txt" | sed -n 's/^source: //p'), unchanged: the patch's own template is in upstream's website, which the module does not hold"
		elif [ -n "$cfn" ]; then
			cp "$cfn" "$out/cloudformation.yaml"
			echo "cloudformation.yaml <- $cfn (given to the refresh script: upstream keeps it in its website, which the module does not hold)"
		else
			echo "cloudformation.yaml: none; the getting-started template is in upstream's website, which the module does not hold"
		fi
	} >"$out/SOURCE.txt"
	minor=${version%.*}
	for old in "$dest/$minor".*; do
		[ -d "$old" ] && rm -rf "$old"
	done
	cp -r "$out" "$dest/$version"
	(cd "$root" && go generate ./hack/operations)
	"$root/hack/reference-source.sh" "$(sed -n 's/^compatibility.yaml main //p' "$dest/SOURCE")"
}

if [ "${1:-}" = --module ]; then
	[ $# -ge 2 ] || { echo "usage: hack/refresh-reference.sh --module VERSION [CLOUDFORMATION|vX.Y.Z]" >&2; exit 2; }
	fromModule "$2" "${3:-}"
	exit 0
fi

src=${1:-}
if [ -z "$src" ]; then
	src=$(mktemp -d)/karpenter-provider-aws.git
	git clone --bare --quiet https://github.com/aws/karpenter-provider-aws "$src"
fi
git() { command git -C "$src" "$@"; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for tag in $TAGS; do
	commit=$(git rev-list -n 1 "$tag")
	out="$tmp/$tag"
	mkdir -p "$out"
	git show "$commit:$CFN" >"$out/cloudformation.yaml"
	extract "$commit" pkg/apis/crds "$out/crds"
	extract "$commit" charts/karpenter "$out/chart"
	printf '# The AWS API operations the controller calls,\n# from tag %s commit %s; do not edit.\n' "$tag" "$commit" >"$out/operations.txt"
	cat >"$out/SOURCE.txt" <<TXT
source: github.com/aws/karpenter-provider-aws tag $tag commit $commit
cloudformation.yaml <- $CFN
crds/ <- pkg/apis/crds/ ; chart/ <- charts/karpenter/
TXT
done
for tag in $GETTING_STARTED_TAGS; do
	commit=$(git rev-list -n 1 "$tag")
	minor=$(cut -d. -f1,2 <<<"$tag")
	path=website/content/en/$minor/getting-started/getting-started-with-karpenter/cloudformation.yaml
	git cat-file -e "$commit:$path" 2>/dev/null || path=website/content/en/docs/getting-started/getting-started-with-karpenter/cloudformation.yaml
	out="$tmp/gettingstarted-$tag"
	mkdir -p "$out"
	git show "$commit:$path" >"$out/cloudformation.yaml"
	cat >"$out/SOURCE.txt" <<TXT
source: github.com/aws/karpenter-provider-aws tag $tag commit $commit
cloudformation.yaml <- $path
TXT
done
commit=$(git rev-list -n 1 "$MIGRATION_TAG")
out="$tmp/migration-$MIGRATION_TAG"
mkdir -p "$out"
git show "$commit:$MIGRATION_POLICY" >"$out/v1beta1-controller-policy.json"
extract "$commit" charts/karpenter "$out/chart"
rm -rf "$out/chart/crds"
cat >"$out/SOURCE.txt" <<TXT
source: github.com/aws/karpenter-provider-aws tag $MIGRATION_TAG commit $commit
v1beta1-controller-policy.json <- $MIGRATION_POLICY (the policy the v1beta1 migration guide attaches beside the v1alpha5 one)
chart/ <- charts/karpenter/ without crds/ (git symlinks to pkg/apis/crds/, which the move applies from upstream by URL)
TXT
main=$(git rev-parse main)
git show "$main:$COMPAT" >"$tmp/compatibility.yaml"

rm -rf "$dest"
mkdir -p "$dest"
cp -r "$tmp"/. "$dest"
# The clone is the checkout the operations are read from.
mkdir -p "$tmp/upstream"
ln -s "$src" "$tmp/upstream/karpenter-provider-aws.git"
(cd "$root" && KARPGEN_UPSTREAM="$tmp/upstream" go generate ./hack/operations)
"$root/hack/reference-source.sh" "$main"
