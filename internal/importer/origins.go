package importer

import (
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/karpgen/karpgen/internal/diag"
)

// originKey is one field of one of the importer's maps (a pool, a class,
// a label map, ...), by the map's identity: key "" is the map itself.
type originKey struct {
	m   uintptr
	key string
}

// from records that the value of key in m (a map the profile is built
// of) came from the input at n; key "" records the map as a whole.
func (im *importer) from(m any, key string, n node) {
	if n.ok() {
		im.fromPos(m, key, n.pos())
	}
}

func (im *importer) fromPos(m any, key string, pos diag.Pos) {
	if reflect.ValueOf(m).Kind() != reflect.Map {
		return
	}
	if im.origins == nil {
		im.origins = map[originKey]diag.Pos{}
	}
	im.origins[originKey{reflect.ValueOf(m).Pointer(), key}] = pos
}

// fromKeys records each key of m as coming from the same key of the
// input's map n (the key's own position).
func (im *importer) fromKeys(m any, n node) {
	im.from(m, "", n)
	for _, k := range n.keys() {
		im.fromPos(m, k, n.keyPos(k))
	}
}

// Origin is where in the input a field of the imported profile came from.
type Origin struct {
	// Path is the field's path from the environment, one element a
	// label ("[N]" for a list element).
	Path []string
	Pos  diag.Pos
}

// originsOf walks the environment as the profile writes it and lists the
// recorded origins under their paths, sorted.
func (im *importer) originsOf(env map[string]any) []Origin {
	var out []Origin
	var walk func(v any, path []string)
	record := func(m any, key string, path []string) {
		if p, ok := im.origins[originKey{reflect.ValueOf(m).Pointer(), key}]; ok {
			out = append(out, Origin{Path: slices.Clone(path), Pos: p})
		}
	}
	walk = func(v any, path []string) {
		switch v := v.(type) {
		case map[string]any:
			record(v, "", path)
			for k, x := range v {
				record(v, k, append(path, k))
				walk(x, append(path, k))
			}
		case map[string]string:
			record(v, "", path)
			for k := range v {
				record(v, k, append(path, k))
			}
		case map[string]map[string]any:
			for k, x := range v {
				walk(x, append(path, k))
			}
		case []any:
			for i, x := range v {
				walk(x, append(path, "["+strconv.Itoa(i)+"]"))
			}
		}
	}
	walk(env, nil)
	slices.SortFunc(out, func(a, b Origin) int { return slices.Compare(a.Path, b.Path) })
	return out
}

// Locate moves a finding of vet on the imported profile to the input
// position its field came from, the nearest recorded one above it, with
// the profile's position second (in Also). A finding with no recorded
// origin stays where it is.
func (r *Result) Locate(f diag.Finding) diag.Finding {
	path := splitPath(f.Path)
	// The path begins with environments.<env>.
	if len(path) < 2 || path[0] != "environments" {
		return f
	}
	path = path[2:]
	best := -1
	for i, o := range r.Origins {
		if len(o.Path) <= len(path) && slices.Equal(o.Path, path[:len(o.Path)]) && (best < 0 || len(o.Path) > len(r.Origins[best].Path)) {
			best = i
		}
	}
	if best < 0 {
		return f
	}
	if f.Pos.File != "" {
		f.Also = append([]diag.Pos{f.Pos}, f.Also...)
	}
	f.Pos = r.Origins[best].Pos
	return f
}

// splitPath splits a finding's path (environments.dev.nodePools.app.
// labels."kubernetes.io/hostname", zones[0]) into labels and "[N]"
// elements.
func splitPath(p string) []string {
	var out []string
	for len(p) > 0 {
		switch p[0] {
		case '.':
			p = p[1:]
		case '[':
			end := strings.IndexByte(p, ']')
			if end < 0 {
				return append(out, p)
			}
			out = append(out, p[:end+1])
			p = p[end+1:]
		case '"':
			q, err := strconv.QuotedPrefix(p)
			if err != nil {
				return append(out, p)
			}
			label, _ := strconv.Unquote(q)
			out = append(out, label)
			p = p[len(q):]
		default:
			end := strings.IndexAny(p, ".[")
			if end < 0 {
				end = len(p)
			}
			out = append(out, p[:end])
			p = p[end:]
		}
	}
	return out
}
