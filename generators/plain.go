package generators

// obj is a JSON object, the plain value every generator builds; encoding
// sorts its keys.
type obj = map[string]any

// strs is a list of strings as the encoder takes lists.
func strs(s ...string) []any {
	out := make([]any, len(s))
	for i, x := range s {
		out[i] = x
	}
	return out
}
