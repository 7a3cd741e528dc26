# karpgen: `make render` renders the repo's own profiles into out/;
# `make test` is the single gate (format, vet, tests, out/ current).
GO       ?= go
BIN      := bin/karpgen

# One set of build flags for the tests, the binaries, the plugin image
# and the release: static (no cgo) and -trimpath, so that a package a test
# compiled is the one a binary links, and each is compiled once
# (docs/performance.md). The link flags differ only in what they stamp.
export CGO_ENABLED := 0
export GOFLAGS := $(strip $(GOFLAGS) -trimpath)
LDFLAGS := -s -w -buildid=
# The IAM policy simulator; its packages are installed from its lockfile.
SIMDIR   := test/iamsim

.PHONY: release release-check all build render test fmt-check vet staticcheck unit iamsim module-zips out-check generate-check generate argocd-e2e terraform-validate terraform-gate oracle-sums simulator simulate-e2e install clean bench tools

all: build

# Static, as the release builds it (hack/release.sh): besides matching what
# ships, a binary without the dynamic loader starts 6 ms sooner on the
# 2-core machine of docs/performance.md.
build:
	$(GO) build -buildvcs=auto -ldflags="$(LDFLAGS)" -o $(BIN) ./cmd/karpgen

install:
	$(GO) install -buildvcs=auto ./cmd/karpgen

render: build
	$(BIN) render

test: fmt-check vet staticcheck unit out-check generate-check argocd-e2e terraform-gate simulate-e2e release-check
	@sh hack/test-summary.sh $(SKIPS) $(DEFERRED)

# Tests that skip for want of an outside checker list themselves here.
SKIPS := $(CURDIR)/.cache/skips.txt
# Oracles that change rarely and were not run, because what they check
# is what they last passed on, list themselves here (docs/oracles.md).
DEFERRED := $(CURDIR)/.cache/deferred.txt

fmt-check:
	@echo "== gofmt"
	@out=$$(gofmt -l $$(git ls-files '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

vet:
	@echo "== go vet"
	$(GO) vet ./...

# staticcheck, pinned in go.mod's tool block.
staticcheck:
	@echo "== staticcheck"
	$(GO) tool staticcheck ./...

unit: iamsim module-zips
	@echo "== go test (every package; the scenarios and conformance take a minute)"
	@mkdir -p $(dir $(SKIPS)) && rm -f $(SKIPS)
	KARPGEN_SKIPS=$(SKIPS) $(GO) test ./...

# Install the IAM policy simulator's packages (once; the lockfile pins them).
iamsim: $(SIMDIR)/node_modules/.package-lock.json
$(SIMDIR)/node_modules/.package-lock.json: $(SIMDIR)/package-lock.json
	cd $(SIMDIR) && npm ci --no-audit --no-fund

# Fetch the module zips the derived tables are made from (the operations
# files of reference/karpenter, internal/*/data/SOURCE, internal/facts/*/data/SOURCE) and Argo CD's (its
# ApplicationSet CRD, reference/argocd/SOURCE) from the Go module proxy,
# for go generate and the tests that hold each table to its source.
# A release that asks for a newer Go than this one still downloads: go
# reports the toolchain, not a failure of the zip, so only a missing zip
# stops the build.
module-zips:
	@echo "== module zips the derived tables come from"
	@for mv in $$( { sed -n 's/.*from module \([^ @]*@v[0-9.]*\) zip .*/\1/p' reference/karpenter/v*/operations.txt internal/*/data/SOURCE internal/*/*/data/SOURCE; \
			awk -F '\t' '!/^#/ && $$5 != "-" {print $$3 "@" $$4}' internal/facts/drift/data/SOURCE; \
			awk '$$1 == "module" {print $$2}' reference/argocd/SOURCE; } | sort -u); do \
		zip=$$(GOTOOLCHAIN=local GOFLAGS=-mod=mod $(GO) mod download -json $$mv 2>/dev/null | sed -n 's/^[[:space:]]*"Zip": "\(.*\)",$$/\1/p'); \
		if [ -z "$$zip" ] || [ ! -f "$$zip" ]; then echo "module proxy: no zip of $$mv"; exit 1; fi; \
	done

# out/ must be exactly what the profiles render.
out-check: build
	@echo "== out/ is what the profiles render"
	$(BIN) render --check

# Every derived table and generated page is what go generate makes of its
# sources (a table whose sources are not at hand is kept, and said so).
generate-check: module-zips
	@echo "== go generate: every derived table and generated page is current"
	KARPGEN_GENERATE_CHECK=1 $(GO) generate ./...

# The plugin inside Argo CD's own argocd-cmp-server and repo-server
# (test/argocd, a module of its own built from github.com/argoproj/argo-cd/v3
# v3.6.2, and with go.3.5.mod from v3.5.8: Argo CD's two newest minors; Go
# 1.27, which the go command fetches from the module proxy), against the
# karpgen binary `make build` makes.
# The plugin runs from the sidecar image: the binary is taken back out of
# the OCI image hack/cmpimage builds (the release's, for this machine's
# architecture), so the test runs what the image holds.
ARGOCD_TOOLCHAIN := go1.27.3
IMAGE_ARCH := $(shell $(GO) env GOARCH)
argocd-e2e: build
	@echo "== Argo CD end-to-end: karpgen's plugin, from its image, in argocd-cmp-server and the repo-server"
	rm -rf bin/karpgen-cmp
	GOOS=linux GOARCH=$(IMAGE_ARCH) $(GO) build -ldflags="$(LDFLAGS)" -o bin/karpgen-linux ./cmd/karpgen
	SOURCE_DATE_EPOCH=$$(git log -1 --format=%ct 2>/dev/null || echo 0) $(GO) run ./hack/cmpimage build -o bin/karpgen-cmp -version v0.0.0-test \
		-plugin deploy/argocd/plugin.yaml linux/$(IMAGE_ARCH)=bin/karpgen-linux
	$(GO) run ./hack/cmpimage extract -platform linux/$(IMAGE_ARCH) -o bin/karpgen-from-image bin/karpgen-cmp
	cd test/argocd && GOTOOLCHAIN=$(ARGOCD_TOOLCHAIN) KARPGEN_BIN=$(CURDIR)/bin/karpgen-from-image $(GO) test -count=1 ./... && \
		GOTOOLCHAIN=$(ARGOCD_TOOLCHAIN) KARPGEN_BIN=$(CURDIR)/bin/karpgen-from-image $(GO) test -count=1 -modfile=go.3.5.mod ./...

# The bundle's Terraform module against OpenTofu and the AWS provider's
# schema (test/terraform, a module of its own that builds OpenTofu v1.12.6
# and a provider serving reference/terraform's schema): tofu validate of
# out/ and of profiles that adopt, and tofu console's documents against
# the CloudFormation template's.
TF_BIN := $(CURDIR)/bin/terraform
# make test runs it when what it checks (hack/oracle-inputs.sh terraform:
# the test module, the schema, every module and template it reads) is not
# what it last passed on (.ci/oracles.sum), or when ORACLES=all (the
# scheduled job); `make oracle-sums` records a pass.
ORACLES ?= changed
ORACLE_SUMS := .ci/oracles.sum
terraform-gate: build
	@mkdir -p $(dir $(DEFERRED)) && rm -f $(DEFERRED)
	@have=$$(bash hack/oracle-inputs.sh terraform $(CURDIR)/$(BIN)); \
	if [ "$(ORACLES)" != all ] && [ "$$have" = "$$(sed -n 's/^terraform //p' $(ORACLE_SUMS))" ]; then \
		echo "== Terraform: OpenTofu passed these modules and this schema already ($(ORACLE_SUMS)): not run again (ORACLES=all runs it)"; \
		echo "OpenTofu validate and console (test/terraform): the modules and schema it passed ($$have)" >>$(DEFERRED); \
	else $(MAKE) --no-print-directory terraform-validate; fi

oracle-sums: terraform-validate
	echo "terraform $$(bash hack/oracle-inputs.sh terraform $(CURDIR)/$(BIN))" >$(ORACLE_SUMS)

terraform-validate: build
	@echo "== Terraform: the IAM module validated by OpenTofu against the AWS provider's schema"
	cd test/terraform && $(GO) vet ./... && $(GO) build -o $(TF_BIN)/tofu github.com/opentofu/opentofu/cmd/tofu && \
		$(GO) build -o $(TF_BIN)/plugins/terraform-provider-aws ./schemaprovider && \
		TOFU_BIN=$(TF_BIN)/tofu TF_PROVIDER_DIR=$(TF_BIN)/plugins KARPGEN_BIN=$(CURDIR)/$(BIN) $(GO) test -count=1 ./...

# karpgen simulate runs Karpenter's own scheduler (sigs.k8s.io/karpenter
# v1.15, which needs Go 1.27 like the Argo CD test) in karpgen-simulate,
# a binary of the simulate/ module, so that karpgen's carries none of it.
# Its dependencies are vendored (simulate/vendor, ignored by git) with
# the order of Karpenter's topology spread fixed, so that one request
# gives one answer (hack/simulate-vendor.sh).
SIM_TOOLCHAIN := go1.27.3
simulate/vendor/modules.txt: simulate/go.mod simulate/go.sum hack/simulate-vendor.sh
	GOTOOLCHAIN_SIM=$(SIM_TOOLCHAIN) bash hack/simulate-vendor.sh
simulator: simulate/vendor/modules.txt
	cd simulate && GOTOOLCHAIN=$(SIM_TOOLCHAIN) $(GO) build -ldflags="$(LDFLAGS)" -o ../bin/karpgen-simulate ./cmd/karpgen-simulate
simulate-e2e: build bin/helm simulate/vendor/modules.txt
	@echo "== karpgen simulate: Karpenter's scheduler over the scenarios of simulate/testdata"
	cd simulate && GOTOOLCHAIN=$(SIM_TOOLCHAIN) $(GO) vet ./... && \
		GOTOOLCHAIN=$(SIM_TOOLCHAIN) KARPGEN_BIN=$(CURDIR)/$(BIN) HELM_BIN=$(CURDIR)/bin/helm $(GO) test -count=1 ./...

# Derive every table and page again (docs/maintaining.md).
generate: module-zips
	$(GO) generate ./...

# Benchmarks: Go benchmarks of loading, each generator, whole renders and
# writing; then karpgen side by side with helm template and cue export,
# a fleet of 1,000 environments and karpgen build, and simulate beside
# Karpenter's provisioner (docs/performance.md).
bench: build tools simulate/vendor/modules.txt
	$(GO) test -run XXX -bench . -benchtime 20x ./generators/ ./internal/action/
	$(GO) run ./internal/bench/sidebyside -bin bin -reference $(REFERENCE) -json docs/bench.json
	cd simulate && GOTOOLCHAIN=$(SIM_TOOLCHAIN) KARPGEN_BIN=$(CURDIR)/$(BIN) KARPGEN_BENCH_JSON=$(CURDIR)/docs/bench.json $(GO) test -count=1 -run TestSideBySideWithUpstream -timeout 30m .
	KARPGEN_UPDATE=1 $(GO) test -count=1 ./internal/bench/benchdoc
	cd simulate && GOTOOLCHAIN=$(SIM_TOOLCHAIN) KARPGEN_BIN=$(CURDIR)/$(BIN) $(GO) test -run XXX -bench . -benchtime 5x .

REFERENCE ?= reference/karpenter

# helm and cue, built from their Go modules in tools/ (a module of its own),
# static as their own releases are, so that the bench compares like with like.
tools: bin/helm bin/cue
bin/helm: tools/go.mod tools/tools.go
	cd tools && $(GO) build -ldflags="$(LDFLAGS)" -o ../bin/helm helm.sh/helm/v3/cmd/helm
bin/cue: tools/go.mod tools/tools.go
	cd tools && $(GO) build -ldflags="$(LDFLAGS)" -o ../bin/cue cuelang.org/go/cmd/cue

# Binaries for linux and darwin (amd64, arm64), their SBOMs and SHA256SUMS
# in dist/<version>/, the version being the tag of HEAD (hack/release.sh);
# the tag's workflow (.github/workflows/release.yml) builds them all.
release:
	bash hack/release.sh

# The release script end to end in a tagged clone of HEAD: release,
# pre-release and snapshot labels, the host platform's binaries and SBOMs,
# the checksums and the version the binary prints, and karpgen built for
# darwin (hack/release-check.sh).
release-check:
	@echo "== release: a tagged clone of HEAD, the host platform, verified; karpgen for darwin"
	bash hack/release-check.sh

clean:
	rm -rf bin dist .cache $(SIMDIR)/node_modules
