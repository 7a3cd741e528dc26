// Package boundyaml refuses YAML that would grow far beyond its size
// once read: a file larger than a limit, or documents whose aliases
// expand to more nodes than a limit (a "billion laughs" of nested
// anchors). Overlays, imported manifests and values are checked before
// any decoder or kustomize expands them.
package boundyaml

import (
	"fmt"

	"go.yaml.in/yaml/v3"

	"github.com/karpgen/karpgen/internal/util/manifest"
)

// Defaults: far above any real overlay, manifest or values file, far
// below what would take a hundred megabytes to expand.
const (
	MaxBytes = 4 << 20
	MaxNodes = 200000
)

// Error names a file refused.
type Error struct {
	File, Reason string
}

func (e *Error) Error() string { return e.File + ": " + e.Reason }

// Check refuses data (the file name is for the message) larger than
// MaxBytes, or whose documents expand to more than MaxNodes nodes with
// every alias replaced by what it names. YAML that does not parse is
// left to the caller's decoder, which says why.
func Check(name string, data []byte) error {
	if len(data) > MaxBytes {
		return &Error{name, fmt.Sprintf("%d bytes, more than %d: refused", len(data), MaxBytes)}
	}
	total := 0
	for doc, err := range manifest.Documents[yaml.Node](data) {
		if err != nil {
			return nil
		}
		c := counter{memo: map[*yaml.Node]int{}}
		total += c.count(&doc, 0)
		if c.over || total > MaxNodes {
			return &Error{name, fmt.Sprintf("its aliases expand to more than %d nodes: refused (nested anchors)", MaxNodes)}
		}
	}
	return nil
}

// counter sizes a node tree with aliases expanded, each anchor once.
type counter struct {
	memo map[*yaml.Node]int
	over bool
}

func (c *counter) count(n *yaml.Node, depth int) int {
	if n == nil || c.over {
		return 0
	}
	if depth > 1000 {
		c.over = true
		return 0
	}
	if v, ok := c.memo[n]; ok {
		return v
	}
	c.memo[n] = 0 // an alias cycle counts nothing more
	size := 1
	if n.Kind == yaml.AliasNode {
		size += c.count(n.Alias, depth+1)
	}
	for _, ch := range n.Content {
		size += c.count(ch, depth+1)
		if size > MaxNodes {
			c.over = true
			break
		}
	}
	c.memo[n] = size
	return size
}

// StrictError names a place where a YAML file says something a decoder
// would pass over in silence.
type StrictError struct {
	File      string
	Line, Col int
	Message   string
}

func (e *StrictError) Error() string {
	return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Col, e.Message)
}

// coreTags are the explicit tags whose value is read as it is written.
var coreTags = map[string]bool{"!!str": true, "!!int": true, "!!float": true, "!!bool": true, "!!null": true, "!!map": true, "!!seq": true, "!!merge": true}

// Strict refuses what decoders read without a word: a mapping key given
// twice (YAML requires unique keys; most decoders keep the last, so a
// second `limits:` would drop the first), and an explicit tag other than
// YAML's core types (`!!binary` would be read as its base64 text, a
// local tag such as `!Ref` as the text after it). The first offence is
// returned, at its position. YAML that does not parse is left to the
// caller's decoder, which says why.
func Strict(name string, data []byte) error {
	for doc, err := range manifest.Documents[yaml.Node](data) {
		if err != nil {
			return nil
		}
		if err := strict(name, &doc, map[*yaml.Node]bool{}); err != nil {
			return err
		}
	}
	return nil
}

func strict(file string, n *yaml.Node, seen map[*yaml.Node]bool) error {
	if n == nil || seen[n] {
		return nil
	}
	seen[n] = true
	if n.Style&yaml.TaggedStyle != 0 && !coreTags[n.Tag] {
		return &StrictError{file, n.Line, n.Column, fmt.Sprintf("the tag %s is not one karpgen reads: a value means what it says as plain YAML; remove the tag", n.Tag)}
	}
	if n.Kind == yaml.MappingNode {
		first := map[string]*yaml.Node{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			if k.Kind != yaml.ScalarNode {
				continue
			}
			if prev, ok := first[k.Value]; ok {
				return &StrictError{file, k.Line, k.Column, fmt.Sprintf("the key %q is given twice (first at line %d): YAML keys are unique, and a decoder would keep only the last; merge the two", k.Value, prev.Line)}
			}
			first[k.Value] = k
		}
	}
	for _, c := range n.Content {
		if err := strict(file, c, seen); err != nil {
			return err
		}
	}
	if n.Kind == yaml.AliasNode {
		return strict(file, n.Alias, seen)
	}
	return nil
}
