// Package schema embeds the CUE schema of a karpgen profile, so that the
// binary and the schema can never drift apart.
package schema

import _ "embed"

// Filename is the name under which the schema appears in error positions.
const Filename = "karpgen/schema/profile.cue"

//go:embed profile.cue
var source []byte

// Source returns the CUE source of the profile schema.
func Source() []byte { return source }
