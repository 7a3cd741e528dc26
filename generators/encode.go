package generators

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sync"
)

// encodeJSON renders v as indented JSON with sorted object keys and a final
// newline. HTML characters are kept as they are.
func encodeJSON(v any) []byte {
	scratch := jsonScratch.Get().(*[]byte)
	defer jsonScratch.Put(scratch)
	out, ok := appendJSON((*scratch)[:0], v, 0)
	*scratch = out
	if !ok {
		return stdJSON(v)
	}
	// The file is kept (a fleet's bundles are held until written or
	// compared): no more than its size.
	file := make([]byte, len(out)+1)
	copy(file, out)
	file[len(out)] = '\n'
	return file
}

// jsonScratch holds the buffers encodeJSON writes into.
var jsonScratch = sync.Pool{New: func() any { return new([]byte) }}

// stdJSON is encodeJSON by encoding/json, for any value.
func stdJSON(v any) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		panic(fmt.Sprintf("encoding generated JSON: %v", err)) // only plain maps, slices and scalars are encoded
	}
	return b.Bytes()
}

// Encoder writes generated objects: JSON with sorted keys, and YAML with
// sorted keys byte for byte as go-yaml v2 writes it. Every generated file
// goes through one. It is safe for concurrent use, and one encoder serves
// a whole render so that the strings environments share are worked out
// once.
type Encoder struct {
	yaml yamlCache
}

// NewEncoder returns an encoder with an empty cache.
func NewEncoder() *Encoder { return &Encoder{} }

// JSON renders v as indented JSON with a final newline.
func (e *Encoder) JSON(v any) []byte { return encodeJSON(v) }

// YAML renders v as one YAML document.
func (e *Encoder) YAML(v any) []byte { return e.yaml.emitYAML(v) }

// YAMLStream renders each document, separated by "---".
func (e *Encoder) YAMLStream(docs []any) []byte {
	var b bytes.Buffer
	for i, d := range docs {
		if i > 0 {
			b.WriteString("---\n")
		}
		b.Write(e.YAML(d))
	}
	return b.Bytes()
}

// YAMLFile is a generated YAML file: the header, then the documents.
func (e *Encoder) YAMLFile(docs ...any) []byte {
	return append([]byte(Header), e.YAMLStream(docs)...)
}
