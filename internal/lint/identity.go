package lint

import (
	"github.com/karpgen/karpgen/internal/util/lazyre"
)

// issuerRE is an EKS OIDC issuer, with or without its https:// scheme:
// the URL `aws eks describe-cluster` prints, or the host form trust
// policies and Terraform outputs use.
var issuerRE = lazyre.New(`^(?:https://)?oidc\.eks\.([a-z0-9-]+)\.(amazonaws\.com(?:\.cn)?)/id/[A-Za-z0-9]+/?$`)
