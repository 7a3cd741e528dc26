package generators

import (
	"bytes"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode"

	yaml "go.yaml.in/yaml/v2"
)

// The generated objects are trees of maps with string keys, slices and
// a few scalar types. emitYAML writes them in block style with sorted
// keys, byte for byte as go-yaml v2 does, at a fraction of its cost: the
// emitter writes the structure itself and asks go-yaml only how to write
// a string that is not plainly safe (quoted, or a literal block), caching
// the answer. TestEmitterMatchesGoYAML holds the two together.

// reserved are plain-safe looking words YAML 1.1 reads as something else.
var reserved = map[string]bool{}

func init() {
	for _, w := range []string{"y", "n", "yes", "no", "on", "off", "true", "false", "null", "nan", "inf"} {
		reserved[w] = true
	}
}

var scalarCache sync.Map // string -> []byte: go-yaml's rendering of a string

// complexKey is raised for a key go-yaml writes as a complex key (one
// with a line break, or longer than a simple key may be): such documents
// are left to go-yaml whole.
type complexKey struct{}

func emitYAML(v any) (out []byte) {
	defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(complexKey); !ok {
				panic(r)
			}
			out = marshal(v)
		}
	}()
	var b bytes.Buffer
	emitNode(&b, v, 0, false)
	return b.Bytes()
}

// emitNode writes v at indent; inline says the first line is already
// started (after "- " or "key: ").
func emitNode(b *bytes.Buffer, v any, indent int, inline bool) {
	switch v := v.(type) {
	case map[string]any:
		emitMap(b, len(v), func(yield func(string, any)) {
			for _, k := range yamlKeys(v) {
				yield(k, v[k])
			}
		}, indent, inline)
	case map[string]string:
		emitMap(b, len(v), func(yield func(string, any)) {
			for _, k := range yamlKeys(v) {
				yield(k, v[k])
			}
		}, indent, inline)
	case []any:
		emitList(b, len(v), func(i int) any { return v[i] }, indent, inline)
	case []string:
		emitList(b, len(v), func(i int) any { return v[i] }, indent, inline)
	default:
		emitScalar(b, v, func(s string) []byte { return itemText(s, -1) })
		b.WriteByte('\n')
	}
}

func emitMap(b *bytes.Buffer, n int, each func(func(string, any)), indent int, inline bool) {
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
		emitKey(b, k)
		b.WriteByte(':')
		switch c := val.(type) {
		case map[string]any, map[string]string:
			if size(c) == 0 {
				b.WriteString(" {}\n")
				return
			}
			b.WriteByte('\n')
			emitNode(b, c, indent+2, false)
		case []any, []string:
			if size(c) == 0 {
				b.WriteString(" []\n")
				return
			}
			b.WriteByte('\n')
			emitNode(b, c, indent, false) // sequences in mappings are not indented
		default:
			b.WriteByte(' ')
			emitScalar(b, c, func(s string) []byte { return valueText(s, indent, k, inline) })
			b.WriteByte('\n')
		}
	})
}

func emitList(b *bytes.Buffer, n int, at func(int) any, indent int, inline bool) {
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
		switch c := item.(type) {
		case map[string]any, map[string]string, []any, []string:
			emitNode(b, c, indent+2, true)
		default:
			emitScalar(b, c, func(s string) []byte { return itemText(s, indent) })
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
		if isPlain(v) {
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
		panic(fmt.Sprintf("emitYAML: unexpected %T", v))
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
		if !isASCIILetter(c) && (c < '0' || c > '9') && !strings.ContainsRune("._/:@=+*,-", rune(c)) {
			return false
		}
	}
	return len(s) > 5 || !reserved[strings.ToLower(s)]
}

func isASCIILetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

func emitKey(b *bytes.Buffer, k string) {
	if strings.ContainsAny(k, "\n\r") || len(k) > 128 {
		panic(complexKey{})
	}
	if isPlain(k) {
		b.WriteString(k)
		return
	}
	b.Write(cached("key\x00"+k, func() []byte {
		out := marshal(map[string]int{k: 0})
		return bytes.TrimSuffix(out, []byte(": 0\n"))
	}))
}

// valueText is go-yaml's rendering of s as the value of key k at indent,
// in a mapping that is a sequence item when inList: where the value starts
// decides where go-yaml folds long lines and indents blocks, so it is
// rendered in a document that puts it in the same place.
func valueText(s string, indent int, k string, inList bool) []byte {
	ctx := fmt.Sprintf("value\x00%d\x00%v\x00%s\x00%s", indent, inList, k, s)
	return cached(ctx, func() []byte {
		var key bytes.Buffer
		emitKey(&key, k)
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
func itemText(s string, indent int) []byte {
	ctx := fmt.Sprintf("item\x00%d\x00%s", indent, s)
	return cached(ctx, func() []byte {
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

func cached(key string, render func() []byte) []byte {
	if v, ok := scalarCache.Load(key); ok {
		return v.([]byte)
	}
	text := render()
	scalarCache.Store(key, text)
	return text
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
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
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
