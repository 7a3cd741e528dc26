// Package argocd runs karpgen's Config Management Plugin inside Argo CD's
// own components, built from the github.com/argoproj/argo-cd/v3 module:
// argocd-cmp-server, started from its own command with
// deploy/argocd/plugin.yaml and the karpgen binary on its PATH as the
// sidecar runs it, and the repo-server's gRPC service, which checks out a
// local git repository, discovers the plugin over its socket, streams the
// checkout to it and returns the manifests the application controller
// would apply.
//
// The module is separate from karpgen's so that karpgen's binary and
// go.mod carry none of Argo CD. It needs Go 1.27 (GOTOOLCHAIN=go1.27.3);
// `make argocd-e2e` runs it against bin/karpgen.
package argocd
