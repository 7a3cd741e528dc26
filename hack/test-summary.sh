#!/bin/sh
# Prints, after make test, the outside checkers the tests run and whether
# this machine has them, then every test that skipped for want of one
# (outside CI a missing checker skips; under CI=true it fails).
skips=${1:?usage: hack/test-summary.sh SKIPS_FILE [DEFERRED_FILE]}
deferred=${2:-}
echo "== outside checkers"
for c in node shellcheck cfn-lint git bash; do
	if command -v "$c" >/dev/null 2>&1; then
		echo "   ran:     $c"
	else
		echo "   skipped: $c (not installed; see docs/oracles.md)"
	fi
done
if [ -f test/iamsim/node_modules/.package-lock.json ]; then
	echo "   ran:     IAM policy simulator (test/iamsim)"
else
	echo "   skipped: IAM policy simulator (run make iamsim)"
fi
argocd=$(sed -n 's|^[[:space:]]*github.com/argoproj/argo-cd/v3 \(v[0-9.]*\)$|\1|p' test/argocd/go.mod)
argocd35=$(sed -n 's|^[[:space:]]*github.com/argoproj/argo-cd/v3 \(v[0-9.]*\)$|\1|p' test/argocd/go.3.5.mod)
echo "   ran:     Argo CD $argocd and $argocd35 argocd-cmp-server and repo-server (test/argocd)"
tofu=$(sed -n 's|^[[:space:]]*github.com/opentofu/opentofu \(v[0-9.]*\)$|\1|p' test/terraform/go.mod)
provider=$(sed -n 's|^provider registry.terraform.io/hashicorp/aws ||p' reference/terraform/SOURCE)
if [ -n "$deferred" ] && [ -s "$deferred" ] && grep -q '^OpenTofu' "$deferred"; then
	echo "   passed:  OpenTofu $tofu validate and console, hashicorp/aws $provider schema (test/terraform), on these modules already: not run again"
else
	echo "   ran:     OpenTofu $tofu validate and console, hashicorp/aws $provider schema (test/terraform)"
fi
karpenter=$(sed -n 's|^[[:space:]]*sigs.k8s.io/karpenter \(v[0-9.]*\)$|\1|p' simulate/go.mod)
echo "   ran:     Karpenter $karpenter scheduler (simulate)"
if [ -s "$skips" ]; then
	echo "== tests skipped for want of a checker or reference data"
	sort -u "$skips" | sed 's/^/   /'
else
	echo "== no test skipped"
fi
