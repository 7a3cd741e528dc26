package generators

import (
	"bytes"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	yaml "go.yaml.in/yaml/v2"
)

// The generated objects are trees of maps with string keys, slices and
// a few scalar types. The encoder writes them in block style with sorted
// keys, byte for byte as go-yaml v2 does, at a fraction of its cost: it
// writes the structure itself and asks go-yaml only how to write a string
// that is not plainly safe (quoted, or a literal block), keeping the
// answer in a bounded cache. TestEmitterMatchesGoYAML and
// FuzzEmitterMatchesGoYAML hold the two together.

// reserved are plain-safe looking words YAML 1.1 reads as something else.
var reserved = map[string]bool{}

func init() {
	for _, w := range []string{"y", "n", "yes", "no", "on", "off", "true", "false", "null", "nan", "inf"} {
		reserved[w] = true
	}
}

// maxCached bounds the strings an encoder remembers; past it the cache
// starts over. A fleet's strings repeat, so it rarely fills.
const maxCached = 8192

// yamlCache holds go-yaml's rendering of strings by their context.
type yamlCache struct {
	mu      sync.Mutex
	entries map[string][]byte
}

func (c *yamlCache) get(key string, render func() []byte) []byte {
	c.mu.Lock()
	text, ok := c.entries[key]
	c.mu.Unlock()
	if ok {
		return text
	}
	text = render()
	c.mu.Lock()
	if c.entries == nil || len(c.entries) >= maxCached {
		c.entries = make(map[string][]byte, 256)
	}
	c.entries[key] = text
	c.mu.Unlock()
	return text
}

// emitYAML writes v as go-yaml v2 would. A document with a key go-yaml
// writes as a complex key (one with a line break, or longer than a simple
// key may be) is left to go-yaml whole.
func (c *yamlCache) emitYAML(v any) []byte {
	if needsGoYAML(v) {
		return marshal(v)
	}
	var b bytes.Buffer
	c.emitNode(&b, v, 0, false)
	return b.Bytes()
}

// needsGoYAML reports a document the emitter leaves to go-yaml: one with
// a complex key, or a value of a type the emitter does not write.
func needsGoYAML(v any) bool {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			if isComplexKey(k) || needsGoYAML(x) {
				return true
			}
		}
	case map[string]string:
		for k := range v {
			if isComplexKey(k) {
				return true
			}
		}
	case []any:
		for _, x := range v {
			if needsGoYAML(x) {
				return true
			}
		}
	case []string, string, int, int64, bool:
	default:
		return true
	}
	return false
}

// isComplexKey reports a key go-yaml writes as "? key": one with a line
// break, one longer than a simple key may be, and one that is not UTF-8
// (written as !!binary).
func isComplexKey(k string) bool {
	return strings.ContainsAny(k, "\n\r") || len(k) > 128 || !utf8.ValidString(k)
}

// emitNode writes v at indent; inline says the first line is already
// started (after "- " or "key: ").
func (c *yamlCache) emitNode(b *bytes.Buffer, v any, indent int, inline bool) {
	switch v := v.(type) {
	case map[string]any:
		c.emitMap(b, len(v), func(yield func(string, any)) {
			for _, k := range yamlKeys(v) {
				yield(k, v[k])
			}
		}, indent, inline)
	case map[string]string:
		c.emitMap(b, len(v), func(yield func(string, any)) {
			for _, k := range yamlKeys(v) {
				yield(k, v[k])
			}
		}, indent, inline)
	case []any:
		c.emitList(b, len(v), func(i int) any { return v[i] }, indent, inline)
	case []string:
		c.emitList(b, len(v), func(i int) any { return v[i] }, indent, inline)
	default:
		emitScalar(b, v, func(s string) []byte { return c.itemText(s, -1) })
		b.WriteByte('\n')
	}
}

func (c *yamlCache) emitMap(b *bytes.Buffer, n int, each func(func(string, any)), indent int, inline bool) {
	if n == 0 {
		b.WriteString("{}\n")
		return
	}
	first := true
	each(func(k string, val any) {
		if !first || !inline {
			b.WriteString(strings.Repeat(" ", indent))
		}
		first = false
		c.emitKey(b, k)
		b.WriteByte(':')
		switch x := val.(type) {
		case map[string]any, map[string]string:
			if size(x) == 0 {
				b.WriteString(" {}\n")
				return
			}
			b.WriteByte('\n')
			c.emitNode(b, x, indent+2, false)
		case []any, []string:
			if size(x) == 0 {
				b.WriteString(" []\n")
				return
			}
			b.WriteByte('\n')
			c.emitNode(b, x, indent, false) // sequences in mappings are not indented
		default:
			b.WriteByte(' ')
			emitScalar(b, x, func(s string) []byte { return c.valueText(s, indent, k, inline) })
			b.WriteByte('\n')
		}
	})
}

func (c *yamlCache) emitList(b *bytes.Buffer, n int, at func(int) any, indent int, inline bool) {
	if n == 0 {
		b.WriteString("[]\n")
		return
	}
	for i := 0; i < n; i++ {
		if i > 0 || !inline {
			b.WriteString(strings.Repeat(" ", indent))
		}
		b.WriteString("- ")
		item := at(i)
		switch x := item.(type) {
		case map[string]any, map[string]string, []any, []string:
			c.emitNode(b, x, indent+2, true)
		default:
			emitScalar(b, x, func(s string) []byte { return c.itemText(s, indent) })
			b.WriteByte('\n')
		}
	}
}

func size(v any) int {
	switch v := v.(type) {
	case map[string]any:
		return len(v)
	case map[string]string:
		return len(v)
	case []any:
		return len(v)
	case []string:
		return len(v)
	}
	return 0
}

// emitScalar writes a scalar; quoted renders a string that is not plainly
// safe, in its place.
func emitScalar(b *bytes.Buffer, v any, quoted func(string) []byte) {
	switch v := v.(type) {
	case string:
		if isPlain(v) || isPlainValue(v, column(b)) {
			b.WriteString(v)
			return
		}
		b.Write(quoted(v))
	case int:
		b.WriteString(strconv.Itoa(v))
	case int64:
		b.WriteString(strconv.FormatInt(v, 10))
	case bool:
		b.WriteString(strconv.FormatBool(v))
	default:
		panic(fmt.Sprintf("emitYAML: unexpected %T (needsGoYAML lets no other type through)", v))
	}
}

// isPlain reports strings go-yaml writes as they are: a letter, then
// characters that cannot start a comment, a flow collection or a mapping,
// not ending in ':' and not a word YAML 1.1 reads as a bool or null.
func isPlain(s string) bool {
	if s == "" || !isASCIILetter(s[0]) || s[len(s)-1] == ':' {
		return false
	}
	for i := 1; i < len(s); i++ {
		c := s[i]
		if !isPlainChar(c) {
			return false
		}
	}
	return len(s) > 5 || !reserved[strings.ToLower(s)]
}

// isPlainChar reports a character a plain string may hold past its first.
func isPlainChar(c byte) bool {
	return isASCIILetter(c) || isASCIIDigit(c) || strings.IndexByte("._/:@=+*,-", c) >= 0
}

// column is where the next byte written to b lands on its line.
func column(b *bytes.Buffer) int {
	return b.Len() - (bytes.LastIndexByte(b.Bytes(), '\n') + 1)
}

// isPlainValue reports more strings go-yaml writes as they are when
// written as a value from column col on (a key is never one of them): a
// quantity (digits, dot-separated groups of digits, then letters or '%':
// "1Gi", "10%", "1.15.2"), which YAML 1.1 reads as no number and no
// time; and a phrase (isPlain's characters and single spaces between
// words, no ": ") that ends within the 80 columns past which go-yaml
// folds a line at a space.
func isPlainValue(s string, col int) bool {
	if s == "" {
		return false
	}
	if isASCIIDigit(s[0]) {
		i := 0
		for i < len(s) && isASCIIDigit(s[i]) {
			i++
		}
		dots := 0
		for i+1 < len(s) && s[i] == '.' && isASCIIDigit(s[i+1]) {
			dots++
			i++
			for i < len(s) && isASCIIDigit(s[i]) {
				i++
			}
		}
		unit := i
		for i < len(s) && (isASCIILetter(s[i]) || s[i] == '%') {
			i++
		}
		// "1.5" is a float, "8" an int; "1e" or "0x" are neither.
		return i == len(s) && (i > unit || dots > 1)
	}
	if !isASCIILetter(s[0]) || col+len(s) > 80 || !strings.Contains(s, " ") || strings.Contains(s, ": ") {
		return false
	}
	for i := 1; i < len(s); i++ {
		if s[i] == ' ' {
			if s[i-1] == ' ' || i == len(s)-1 {
				return false
			}
			continue
		}
		if !isPlainChar(s[i]) {
			return false
		}
	}
	return s[len(s)-1] != ':'
}

func isASCIIDigit(c byte) bool { return c >= '0' && c <= '9' }

func isASCIILetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

func (c *yamlCache) emitKey(b *bytes.Buffer, k string) {
	if isPlain(k) {
		b.WriteString(k)
		return
	}
	b.Write(c.get("key\x00"+k, func() []byte {
		out := marshal(map[string]int{k: 0})
		return bytes.TrimSuffix(out, []byte(": 0\n"))
	}))
}

// valueText is go-yaml's rendering of s as the value of key k at indent,
// in a mapping that is a sequence item when inList: where the value starts
// decides where go-yaml folds long lines and indents blocks, so it is
// rendered in a document that puts it in the same place.
func (c *yamlCache) valueText(s string, indent int, k string, inList bool) []byte {
	ctx := fmt.Sprintf("value\x00%d\x00%v\x00%s\x00%s", indent, inList, k, s)
	return c.get(ctx, func() []byte {
		var key bytes.Buffer
		c.emitKey(&key, k)
		doc := nest(indent, map[string]any{k: s})
		prefix := strings.Repeat(" ", indent) + key.String() + ": "
		if inList {
			doc = nest(indent-2, map[string]any{"k": []any{map[string]any{k: s}}})
			prefix = strings.Repeat(" ", indent-2) + "- " + key.String() + ": "
		}
		out := string(marshal(doc))
		start := len(prefix) // the value's line is the first
		if i := strings.LastIndex(out, "\n"+prefix); i >= 0 {
			start = i + 1 + len(prefix)
		}
		return []byte(strings.TrimSuffix(out[start:], "\n"))
	})
}

// itemText is go-yaml's rendering of s as a sequence item whose dash is
// at indent (-1: a document that is a bare scalar).
func (c *yamlCache) itemText(s string, indent int) []byte {
	ctx := fmt.Sprintf("item\x00%d\x00%s", indent, s)
	return c.get(ctx, func() []byte {
		if indent < 0 {
			return bytes.TrimSuffix(marshal(s), []byte("\n"))
		}
		// A sequence under a key is written at the key's indent.
		out := string(marshal(nest(indent, map[string]any{"k": []any{s}})))
		prefix := strings.Repeat(" ", indent) + "- "
		i := strings.Index(out, "\n"+prefix)
		return []byte(strings.TrimSuffix(out[i+1+len(prefix):], "\n"))
	})
}

// nest wraps m in single-key maps until its keys sit at indent.
func nest(indent int, m map[string]any) map[string]any {
	for i := 0; i < indent; i += 2 {
		m = map[string]any{"n": m}
	}
	return m
}

func marshal(v any) []byte {
	out, err := yaml.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("encoding generated YAML: %v", err))
	}
	return out
}

// yamlKeys returns the keys of m in go-yaml's order: runes compared one by
// one, except that runs of digits compare by their value and letters sort
// before other characters.
func yamlKeys[V any](m map[string]V) []string {
	keys := slices.Collect(maps.Keys(m))
	sort.Slice(keys, func(i, j int) bool { return keyLess(keys[i], keys[j]) })
	return keys
}

func keyLess(a, b string) bool {
	ar, br := []rune(a), []rune(b)
	for i := 0; i < len(ar) && i < len(br); i++ {
		if ar[i] == br[i] {
			continue
		}
		aLetter, bLetter := unicode.IsLetter(ar[i]), unicode.IsLetter(br[i])
		switch {
		case aLetter && bLetter:
			return ar[i] < br[i]
		case aLetter || bLetter:
			return bLetter
		}
		// A run of digits that continues a number with a non-zero digit
		// is compared as part of it.
		var an, bn int64
		if ar[i] == '0' || br[i] == '0' {
			for j := i - 1; j >= 0 && unicode.IsDigit(ar[j]); j-- {
				if ar[j] != '0' {
					an, bn = 1, 1
					break
				}
			}
		}
		ai, bi := i, i
		for ; ai < len(ar) && unicode.IsDigit(ar[ai]); ai++ {
			an = an*10 + int64(ar[ai]-'0')
		}
		for ; bi < len(br) && unicode.IsDigit(br[bi]); bi++ {
			bn = bn*10 + int64(br[bi]-'0')
		}
		if an != bn {
			return an < bn
		}
		if ai != bi {
			return ai < bi
		}
		return ar[i] < br[i]
	}
	return len(ar) < len(br)
}
