//go:build tools

// Package tools pins the programs `make bench` compares karpgen with,
// helm (helm template) and cue (cue export), and the one `make release`
// writes the SBOM with (cyclonedx-gomod). They live in a module of their
// own, so nothing of theirs reaches the karpgen binary.
package tools

import (
	_ "cuelang.org/go/cmd/cue"
	_ "github.com/CycloneDX/cyclonedx-gomod/cmd/cyclonedx-gomod"
	_ "helm.sh/helm/v3/cmd/helm"
)
