#!/usr/bin/env bash
# Copy the upstream Go files the drift table is derived from into
# reference/karpenter-src/RELEASE/, so that the table's test reads them in a
# clone with nothing beside it.
#
#   hack/refresh-karpenter-src.sh RELEASE --tree DIR
#   hack/refresh-karpenter-src.sh RELEASE --module [CORE_VERSION|CORE_TREE]
#
# --tree DIR reads a tree laid out as DIR/core/<path> (sigs.k8s.io/karpenter
# at the version the release requires) and DIR/provider/<path>
# (github.com/aws/karpenter-provider-aws at the tag); its SOURCE line is
# taken as given in DIR/../SOURCE when there is one.
# --module reads both from the Go module proxy's zips: the provider at
# RELEASE, the core at the version RELEASE's go.mod requires, or at
# CORE_VERSION when the proxy refuses that one, or from CORE_TREE/core/
# (a tree as for --tree, of the version the release requires) when the
# proxy serves none; SOURCE says which.
#
# Then run `go run ./hack/drifttable` to rewrite internal/drift/data.
set -euo pipefail

FILES="core/pkg/apis/v1/nodepool.go
core/pkg/apis/v1/nodeclaim.go
core/pkg/apis/v1/duration.go
core/pkg/controllers/nodeclaim/disruption/drift.go
provider/pkg/apis/v1/ec2nodeclass.go
provider/pkg/cloudprovider/drift.go"

root=$(cd "$(dirname "$0")/.." && pwd)
release=${1:?usage: $0 RELEASE --tree DIR | --module [CORE_VERSION]}
mode=${2:?usage: $0 RELEASE --tree DIR | --module [CORE_VERSION]}
dest="$root/reference/karpenter-src/$release"
rm -rf "$dest"
mkdir -p "$dest"

zipof() { # MODULE@VERSION -> path of the zip in the module cache
	GOTOOLCHAIN=local GOFLAGS=-mod=mod go mod download -json "$1" 2>/dev/null |
		sed -n 's/^[[:space:]]*"Zip": "\(.*\)",$/\1/p' || true
}
h1of() { # MODULE@VERSION -> the zip's go.sum hash
	GOTOOLCHAIN=local GOFLAGS=-mod=mod go mod download -json "$1" 2>/dev/null |
		sed -n 's/^[[:space:]]*"Sum": "\(.*\)",$/\1/p' || true
}

case $mode in
--tree)
	tree=${3:?--tree needs a folder}
	for f in $FILES; do
		mkdir -p "$dest/$(dirname "$f")"
		cp "$tree/$f" "$dest/$f"
	done
	tag=$(basename "$tree")
	line=$(grep "^tag $tag " "$(dirname "$tree")/SOURCE" 2>/dev/null || true)
	source="$release: tree ${line:-$tree}"
	;;
--module)
	provider="github.com/aws/karpenter-provider-aws@$release"
	pzip=$(zipof "$provider")
	[ -n "$pzip" ] || { echo "module proxy: no zip of $provider" >&2; exit 1; }
	required=$(unzip -p "$pzip" "$provider/go.mod" | awk '$1 == "sigs.k8s.io/karpenter" {print $2}')
	coretree=""
	if [ -n "${3:-}" ] && [ -d "$3" ]; then
		coretree=$3
		corev=$required
	else
		corev=${3:-$required}
	fi
	core="sigs.k8s.io/karpenter@$corev"
	czip=""
	if [ -z "$coretree" ]; then
		czip=$(zipof "$core")
		[ -n "$czip" ] || { echo "module proxy: no zip of $core" >&2; exit 1; }
	fi
	for f in $FILES; do
		mkdir -p "$dest/$(dirname "$f")"
		case $f in
		core/*) if [ -n "$coretree" ]; then cp "$coretree/$f" "$dest/$f"; else unzip -p "$czip" "$core/${f#core/}" >"$dest/$f"; fi ;;
		provider/*) unzip -p "$pzip" "$provider/${f#provider/}" >"$dest/$f" ;;
		esac
	done
	source="$release: module $provider $(h1of "$provider"); core $core $(h1of "$core")"
	if [ -n "$coretree" ]; then
		line=$(grep "^tag $(basename "$coretree") " "$(dirname "$coretree")/SOURCE" 2>/dev/null || true)
		source="$release: module $provider $(h1of "$provider"); core $core from tree ${line:-$coretree}"
	elif [ "$corev" != "$required" ]; then
		source="$source (the release requires $required, which the proxy does not serve)"
	fi
	;;
*)
	echo "usage: $0 RELEASE --tree DIR | --module [CORE_VERSION]" >&2
	exit 2
	;;
esac

src="$root/reference/karpenter-src/SOURCE"
{
	[ -f "$src" ] && grep -v "^$release: " "$src" | grep -v '^#' || true
	echo "$source"
} | sort -V >"$src.new"
{
	echo "# Upstream Go files per reference release (Apache-2.0): the NodePool, NodeClaim and"
	echo "# EC2NodeClass types (hash:\"ignore\" tags, hash versions) and the drift checks."
	echo "# Written by hack/refresh-karpenter-src.sh; internal/drift/data is derived from them."
	cat "$src.new"
} >"$src"
rm "$src.new"
