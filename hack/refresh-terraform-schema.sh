#!/usr/bin/env bash
# Refresh reference/terraform/: the part of the Terraform AWS provider's
# schema that the bundle's Terraform module uses, which test/terraform
# serves to `tofu validate`.
#
#   hack/refresh-terraform-schema.sh [PACKAGE@VERSION [DIR]]
#
# DIR is reference/terraform (the current major, 6.x) unless given:
# reference/terraform/v5 holds 5.x's, from an @cdktf/provider-aws 19.x
# release, so that the module is held to both majors it allows.
#
# The module proxy does not serve the provider's Go module, so the schema
# comes from npm's @cdktn/provider-aws, which CDK Terrain (the community
# successor of CDK for Terraform, whose @cdktf/provider-aws is archived)
# generates from the provider's own schema (its JavaScript names the
# provider release, e.g. 6.66.0). An @cdktf/provider-aws release reads the
# same way, for an older provider. hack/tfschema reads the package and writes the
# types below in the format of `tofu providers schema -json`; SOURCE says
# which package, its integrity and the provider release. A type the
# generators start to use goes in TYPES (test/terraform fails until then:
# "The provider hashicorp/aws does not support resource type ...").
set -euo pipefail

PACKAGE=${1:-@cdktn/provider-aws@25.7.0}
TYPES="aws_iam_role aws_iam_policy aws_iam_role_policy_attachment aws_eks_access_entry
aws_eks_pod_identity_association aws_sqs_queue aws_sqs_queue_policy aws_cloudwatch_event_rule
aws_cloudwatch_event_target data.aws_iam_role data.aws_sqs_queue data.aws_caller_identity data.aws_region"

root=$(cd "$(dirname "$0")/.." && pwd)
dest="$root/${2:-reference/terraform}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

(cd "$tmp" && npm pack --silent "$PACKAGE" >/dev/null)
tar -xzf "$tmp"/*-provider-aws-*.tgz -C "$tmp"
integrity=$(cd "$tmp" && npm view "$PACKAGE" dist.integrity)
mkdir -p "$dest"
# shellcheck disable=SC2086 # TYPES is a list of words
(cd "$root" && go run ./hack/tfschema -package "$tmp/package" -o "$dest/aws-provider-schema.json" $TYPES)
provider=$(sed -n 's/.*"\/\/": "derived by hack\/tfschema from @[a-z]*\/provider-aws, made from hashicorp\/aws \(.*\)",*/\1/p' "$dest/aws-provider-schema.json")
cat >"$dest/SOURCE" <<TXT
# The Terraform AWS provider's schema, as much of it as karpgen's module
# uses (iam/terraform/main.tf.json): what test/terraform's provider serves
# to \`tofu validate\`. Derived by hack/refresh-terraform-schema.sh with
# hack/tfschema from the npm package that CDK Terrain (CDK for Terraform,
# before it was archived) generates from
# the provider's own schema.
package $PACKAGE $integrity
provider registry.terraform.io/hashicorp/aws $provider
$(cd "$dest" && sha256sum aws-provider-schema.json)
TXT
echo "${2:-reference/terraform}: hashicorp/aws $provider from $PACKAGE"
