// Package conformance proves rendered bundles against the real upstream
// artifacts of every Karpenter minor: the CRDs (structural schema,
// defaults, pruning and CEL rules, as the API server applies them), the
// Helm chart (rendered in-process), and kustomize. It holds tests only, so
// the heavy libraries they use never reach the karpgen binary.
package conformance
