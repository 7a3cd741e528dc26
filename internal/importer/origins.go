package importer

import (
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/karpgen/karpgen/internal/diag"
)

// place is where in the profile a struct the importer builds sits, as
// its path from the environment (nodePools, <name>): from records where
// its fields came from in the input.
type place struct {
	im   *importer
	path []string
}

// at is the place of the struct at path.
func (im *importer) at(path ...string) place { return place{im, path} }

// from records that the field at path below p (p itself for none) came
// from the input at n.
func (p place) from(n node, path ...string) {
	if n.ok() {
		p.fromPos(n.pos(), path...)
	}
}

func (p place) fromPos(pos diag.Pos, path ...string) {
	if p.im.origins == nil {
		p.im.origins = map[string]Origin{}
	}
	full := append(slices.Clone(p.path), path...)
	p.im.origins[strings.Join(full, "\x00")] = Origin{Path: full, Pos: pos}
}

// fromKeys records the map at path as coming from the input's map n, and
// each of its keys from the same key of n (the key's own position).
func (p place) fromKeys(n node, path ...string) {
	p.from(n, path...)
	for _, k := range n.keys() {
		p.fromPos(n.keyPos(k), append(slices.Clone(path), k)...)
	}
}

// copyOrigins records for the struct at to where the fields of the one at
// from came from: a node class copied for a pool's kubelet.
func (im *importer) copyOrigins(from, to []string) {
	for _, o := range slices.Collect(maps.Values(im.origins)) {
		if len(o.Path) >= len(from) && slices.Equal(o.Path[:len(from)], from) {
			im.at(to...).fromPos(o.Pos, o.Path[len(from):]...)
		}
	}
}

// Origin is where in the input a field of the imported profile came from.
type Origin struct {
	// Path is the field's path from the environment, one element a
	// label ("[N]" for a list element).
	Path []string
	Pos  diag.Pos
}

// originsOf lists the recorded origins, sorted by path.
func (im *importer) originsOf() []Origin {
	out := slices.Collect(maps.Values(im.origins))
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
