//go:build tools

// Package tools pins the programs `make bench` compares karpgen with:
// helm (helm template) and cue (cue export). They live in a module of
// their own, so nothing of theirs reaches the karpgen binary.
package tools

import (
	_ "cuelang.org/go/cmd/cue"
	_ "helm.sh/helm/v3/cmd/helm"
)
