#!/usr/bin/env bash
# Write reference/karpenter/SOURCE: where every folder came from and the
# SHA-256 of every file. hack/refresh-reference.sh calls it; the argument
# is the upstream main commit compatibility.yaml was taken from.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root/reference/karpenter"
tmp=$(mktemp)
{
	echo "# Upstream release artifacts of github.com/aws/karpenter-provider-aws, one folder per release."
	echo "# Written by hack/refresh-reference.sh; do not edit by hand."
	echo "compatibility.yaml main $1"
	for d in v*/; do
		sed -n 's/^source: github.com\/aws\/karpenter-provider-aws tag \([^ ]*\) commit \([0-9a-f]*\)$/tag \1 commit \2/p' "$d/SOURCE.txt"
		sed -n 's/^source: go module github.com\/aws\/karpenter-provider-aws@\([^ ]*\) zip \(.*\)$/module \1 zip \2/p' "$d/SOURCE.txt"
	done
	for d in migration-*/; do
		sed -n 's/^source: github.com\/aws\/karpenter-provider-aws tag \([^ ]*\) commit \([0-9a-f]*\)$/migration \1 commit \2/p' "$d/SOURCE.txt"
	done
	for d in gettingstarted-*/; do
		sed -n 's/^source: github.com\/aws\/karpenter-provider-aws tag \([^ ]*\) commit \([0-9a-f]*\)$/gettingstarted \1 commit \2/p' "$d/SOURCE.txt"
	done
	echo "# sha256"
	find . -type f ! -name SOURCE -printf '%P\n' | LC_ALL=C sort | xargs sha256sum
} >"$tmp"
mv "$tmp" SOURCE
