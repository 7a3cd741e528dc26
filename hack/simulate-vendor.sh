#!/usr/bin/env bash
# Vendors the simulate module's dependencies (simulate/vendor, which
# git ignores and every go command in simulate/ then builds from) and
# fixes the order in which Karpenter's topology spread visits domains.
#
# Upstream's TopologyGroup picks, among the domains of least count, the
# first that a map or an unsorted set yields: Go draws that order at
# random, so one request could settle into different zones, instance
# types and prices from run to run. Visiting the domains sorted makes the
# pick the least domain by name, every run; nothing else changes. The
# rewrite names how many loops it changes, and stops when upstream's
# code no longer has them (a new release of sigs.k8s.io/karpenter):
# read the file again, and set the counts.
set -euo pipefail
cd "$(dirname "$0")/../simulate"
GOTOOLCHAIN=${GOTOOLCHAIN_SIM:-go1.27.3} GOFLAGS=-mod=mod go mod vendor
f=vendor/sigs.k8s.io/karpenter/pkg/controllers/provisioning/scheduling/topologygroup.go
count() { grep -c -- "$1" "$f" || true; }
want() {
	local got
	got=$(count "$1")
	if [ "$got" != "$2" ]; then
		echo "simulate-vendor: $f has $got of $1, not $2: upstream changed; read it and update hack/simulate-vendor.sh" >&2
		exit 1
	fi
}
want 'for domain := range t.domains {' 5
want 'for domain, count := range t.domains {' 1
want 'range nodeDomains.Values()' 3
sed -i \
	-e 's/for domain := range t\.domains {/for _, domain := range sets.List(sets.KeySet(t.domains)) {/' \
	-e 's/for domain, count := range t\.domains {/for _, domain := range sets.List(sets.KeySet(t.domains)) {\n\t\tcount := t.domains[domain]/' \
	-e 's/range nodeDomains\.Values()/range sets.List(sets.New(nodeDomains.Values()...))/' \
	"$f"
want 'range sets.List(' 9
gofmt -l "$f" | grep -q . && gofmt -w "$f"
echo "simulate-vendor: vendored; $f visits its domains in order"
