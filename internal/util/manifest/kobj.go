// Package manifest reads Kubernetes objects from a YAML stream: each document
// in turn, decoded into the caller's type, and the header every object
// carries (apiVersion, kind, name and namespace).
package manifest

import (
	"bytes"
	"errors"
	"io"
	"iter"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Header is what names an object: its apiVersion, kind, name and
// namespace. Embed it with `yaml:",inline"` in a type that reads more.
type Header struct {
	APIVersion string `yaml:"apiVersion"`
	Kind       string `yaml:"kind"`
	Metadata   struct {
		Name      string `yaml:"name"`
		Namespace string `yaml:"namespace"`
	} `yaml:"metadata"`
}

// Group is the API group of the apiVersion: "" for the core group ("v1").
func (h Header) Group() string {
	group, _, ok := strings.Cut(h.APIVersion, "/")
	if !ok {
		return ""
	}
	return group
}

// Documents yields each document of the stream decoded into a new T, in
// order. It stops at the end of the stream, or after yielding the first
// error with a zero T.
func Documents[T any](stream []byte) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		dec := yaml.NewDecoder(bytes.NewReader(stream))
		for {
			var doc T
			err := dec.Decode(&doc)
			if errors.Is(err, io.EOF) {
				return
			}
			if err != nil {
				var zero T
				yield(zero, err)
				return
			}
			if !yield(doc, nil) {
				return
			}
		}
	}
}

// All decodes every document of the stream into a T; what does not parse
// is an error.
func All[T any](stream []byte) ([]T, error) {
	var out []T
	for doc, err := range Documents[T](stream) {
		if err != nil {
			return nil, err
		}
		out = append(out, doc)
	}
	return out, nil
}
