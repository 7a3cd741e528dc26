package importer

import (
	"strconv"

	"go.yaml.in/yaml/v3"

	"github.com/karpgen/karpgen/internal/diag"
)

// node is a YAML node of an input file, so that every value keeps the
// file:line it came from.
type node struct {
	file string
	n    *yaml.Node
}

func (x node) ok() bool { return x.n != nil }

func (x node) pos() diag.Pos {
	if x.n == nil {
		return diag.Pos{File: x.file}
	}
	return diag.Pos{File: x.file, Line: x.n.Line, Col: x.n.Column}
}

// get follows map keys; a missing key gives a node that is not ok.
func (x node) get(keys ...string) node {
	for _, k := range keys {
		if x.n == nil || x.n.Kind != yaml.MappingNode {
			return node{file: x.file}
		}
		var next *yaml.Node
		for i := 0; i+1 < len(x.n.Content); i += 2 {
			if x.n.Content[i].Value == k {
				next = x.n.Content[i+1]
			}
		}
		// YAML's null (`key: null`, `key: ~`, `key:`) is a field left
		// unset, never the string "null".
		if next != nil && next.Kind == yaml.ScalarNode && next.Tag == "!!null" {
			next = nil
		}
		x = node{x.file, next}
	}
	return x
}

// keyPos is the position of key k in map x (the key itself, not its value).
func (x node) keyPos(k string) diag.Pos {
	if x.n != nil && x.n.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(x.n.Content); i += 2 {
			if key := x.n.Content[i]; key.Value == k {
				return diag.Pos{File: x.file, Line: key.Line, Col: key.Column}
			}
		}
	}
	return x.pos()
}

func (x node) str() string {
	if x.n == nil || x.n.Kind != yaml.ScalarNode {
		return ""
	}
	return x.n.Value
}

func (x node) integer() (int, bool) {
	i, err := strconv.Atoi(x.str())
	return i, err == nil
}

func (x node) boolean() (bool, bool) {
	b, err := strconv.ParseBool(x.str())
	return b, err == nil && x.ok()
}

func (x node) list() []node {
	if x.n == nil || x.n.Kind != yaml.SequenceNode {
		return nil
	}
	out := make([]node, len(x.n.Content))
	for i, c := range x.n.Content {
		out[i] = node{x.file, c}
	}
	return out
}

// keys returns the map's keys in file order.
func (x node) keys() []string {
	if x.n == nil || x.n.Kind != yaml.MappingNode {
		return nil
	}
	var out []string
	for i := 0; i+1 < len(x.n.Content); i += 2 {
		out = append(out, x.n.Content[i].Value)
	}
	return out
}

func (x node) strings() []string {
	var out []string
	for _, v := range x.list() {
		out = append(out, v.str())
	}
	return out
}

func (x node) stringMap() map[string]string {
	if x.n == nil || x.n.Kind != yaml.MappingNode {
		return nil
	}
	out := map[string]string{}
	for _, k := range x.keys() {
		out[k] = x.get(k).str()
	}
	return out
}

// plain decodes the node into Go values: maps, lists, strings, ints and
// bools (numbers stay numbers); a null field of a map is left out.
func (x node) plain() any {
	if x.n == nil {
		return nil
	}
	var v any
	if err := x.n.Decode(&v); err != nil {
		return x.n.Value
	}
	return withoutNulls(v)
}

// withoutNulls drops the null fields of maps, at any depth.
func withoutNulls(v any) any {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			if x == nil {
				delete(v, k)
			} else {
				v[k] = withoutNulls(x)
			}
		}
	case []any:
		for i, x := range v {
			v[i] = withoutNulls(x)
		}
	}
	return v
}
