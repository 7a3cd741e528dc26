#!/usr/bin/env bash
# Print the digest of what an outside oracle that changes rarely checks,
# so that make test runs it when that changed and leaves it to the
# scheduled job otherwise (docs/oracles.md). .ci/oracles.sum records the
# digest each oracle last passed on (make oracle-sums writes it).
#
#   hack/oracle-inputs.sh terraform KARPGEN_BIN
#
# terraform: OpenTofu's test module and the provider schema it serves,
# and every Terraform module and CloudFormation template the test reads:
# the IAM of each bundle of out/, and that of the profiles the test
# renders itself (adoption, aws-auth), rendered here by KARPGEN_BIN.
set -euo pipefail
cd "$(dirname "$0")/.."
name=${1:?usage: hack/oracle-inputs.sh terraform KARPGEN_BIN}
case $name in
terraform)
	karpgen=${2:?usage: hack/oracle-inputs.sh terraform KARPGEN_BIN}
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	mkdir -p "$tmp/r/profiles"
	cp cmd/karpgen/testdata/common/base.cue "$tmp/r/profiles/base.cue"
	cp test/terraform/testdata/environments.cue "$tmp/r/profiles/environments.cue"
	(cd "$tmp/r" && "$karpgen" render >/dev/null)
	{
		git ls-files -z test/terraform reference/terraform hack/tfschema | xargs -0 sha256sum
		find out/*/iam -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum
		(cd "$tmp/r" && find out/*/iam -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum | sed 's|  out/|  variant/|')
	} | sha256sum | cut -d' ' -f1
	;;
*)
	echo "oracle-inputs: no oracle named $name (terraform)" >&2
	exit 2
	;;
esac
