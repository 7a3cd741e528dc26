//go:build tools

package terraform

// OpenTofu's command, which the Makefile builds from this module.
import _ "github.com/opentofu/opentofu/cmd/tofu"
