// Package boundyaml refuses YAML that would grow far beyond its size
// once read: a file larger than a limit, or documents whose aliases
// expand to more nodes than a limit (a "billion laughs" of nested
// anchors). Overlays, imported manifests and values are checked before
// any decoder or kustomize expands them.
package boundyaml

import (
	"fmt"

	"go.yaml.in/yaml/v3"

	"github.com/karpgen/karpgen/internal/kobj"
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
	for doc, err := range kobj.Documents[yaml.Node](data) {
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
