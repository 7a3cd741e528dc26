package generators

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// encodeJSON renders v as indented JSON with sorted object keys and a final
// newline. HTML characters are kept as they are.
func encodeJSON(v any) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		panic(fmt.Sprintf("encoding generated JSON: %v", err)) // only plain maps, slices and scalars are encoded
	}
	return b.Bytes()
}

// CompactSize is the length of v as JSON without whitespace, the measure
// IAM applies to policy documents.
func CompactSize(v any) int {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic(fmt.Sprintf("encoding generated JSON: %v", err))
	}
	return b.Len() - 1 // the encoder's newline
}

// encodeYAML renders v as YAML with sorted keys (see emitYAML).
func encodeYAML(v any) []byte {
	return emitYAML(v)
}

// encodeYAMLStream renders each document, separated by "---".
func encodeYAMLStream(docs []any) []byte {
	var b bytes.Buffer
	for i, d := range docs {
		if i > 0 {
			b.WriteString("---\n")
		}
		b.Write(encodeYAML(d))
	}
	return b.Bytes()
}
