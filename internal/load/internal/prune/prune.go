// Package prune is the loader's fleet machinery: it reads a profile
// package's CUE files once, as tokens, and prunes them to the
// environments a command is about, so that a package of ten thousand
// environments costs little more than one; the loader builds it in
// batches of the environments Scan finds.
package prune

import (
	"bytes"
	"io"
	"io/fs"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"cuelang.org/go/cue/ast"
	cuelit "cuelang.org/go/cue/literal"
	"cuelang.org/go/cue/load"
	"cuelang.org/go/cue/parser"
	"cuelang.org/go/cue/token"
)

// Pruning: a command about some environments (build, vet or render of
// named environments) need not evaluate the others. Before the package is
// built, the fields of the top-level `environments` struct that name
// other environments are taken out of the source, so a profile package
// of ten thousand environments costs little more than a package of one.
//
// Pruning must never change the value of an environment that is kept:
// `build` (what Argo CD applies) must print what `render --check` (what
// CI checked) vouched for. So only regular fields with a plain name are
// ever dropped (hidden fields, definitions, let clauses, aliases,
// patterns, optional fields and comprehensions stay), and a package is
// pruned only when no identifier anywhere in it, other than a field's
// own label, spells `environments` or the name of a field that would be
// dropped: a reference that could resolve to a dropped field (or, once
// it is gone, to a field of the same name further out) keeps every file
// whole.
//
// The work is done on tokens, not syntax trees: each file is read once
// (by Fast, or by CUE's scanner where fastLex gives up), and a dropped
// environment's text is taken out, its newlines kept, so what remains is
// parsed small, at the line and column it has in the file (the loader
// reads it through an overlay of the folder). Only the environments a
// command is about are parsed and evaluated: an error inside another
// environment, a syntax error too, is for the commands that evaluate
// that one.

// Prune sets cfg to load the package's CUE files (names, in fsys, shown
// below the folder shown) pruned to the environments in keep. It leaves
// cfg as it is when the package cannot be pruned safely.
func Prune(cfg *load.Config, fsys fs.FS, shown string, names []string, keep []string) {
	if ps := Scan(fsys, shown, names); ps != nil {
		ps.Apply(cfg, keep)
	}
}

// Apply sets cfg to load the package pruned to the environments in keep:
// the loader reads their pruned text through an overlay of the folder
// and takes the syntax trees pruning parsed. It reports false, leaving
// cfg as it is, when the package cannot be pruned to keep safely.
func (p *Package) Apply(cfg *load.Config, keep []string) bool {
	srcs, trees := p.keep(keep)
	if srcs == nil {
		return false
	}
	cfg.FS = overlay{p.fsys, srcs}
	cfg.ParseFile = func(name string, src any, pc parser.Config) (*ast.File, error) {
		if f, ok := trees[name]; ok {
			return f, nil
		}
		return parser.ParseFile(name, src, pc)
	}
	return true
}

// overlay is a folder with some of its files' contents replaced.
type overlay struct {
	fs.FS
	files map[string][]byte
}

func (o overlay) Open(name string) (fs.File, error) {
	if src, ok := o.files[name]; ok {
		info, err := fs.Stat(o.FS, name)
		if err != nil {
			return nil, err
		}
		return &memFile{Reader: bytes.NewReader(src), info: info, size: int64(len(src))}, nil
	}
	return o.FS.Open(name)
}

// memFile is an overlay's file: its contents in memory, its other
// attributes the file's on disk.
type memFile struct {
	*bytes.Reader
	info fs.FileInfo
	size int64
}

func (f *memFile) Stat() (fs.FileInfo, error) { return sizedInfo{f.info, f.size}, nil }
func (f *memFile) Close() error               { return nil }

type sizedInfo struct {
	fs.FileInfo
	size int64
}

func (i sizedInfo) Size() int64 { return i.size }

// Package is a package's CUE files read once: each file's ranges
// of plain environment fields, the identifiers that are not labels, and
// the names of the environments those fields declare. It prunes the
// package to any set of environments.
type Package struct {
	fsys  fs.FS
	shown string
	files []string
	scans []*fileScan
	refs  map[string]bool
	// envs are the environments plain fields declare, sorted.
	envs []string
}

// Scan reads and scans the package's files (names in fsys, shown below
// the folder shown in positions); nil when a file does not read or scan
// (the loader reports that), or when an identifier spells `environments`
// (a reference to the whole map).
func Scan(fsys fs.FS, shown string, files []string) *Package {
	p := &Package{fsys: fsys, shown: shown, files: files, scans: make([]*fileScan, len(files)), refs: map[string]bool{}}
	for i, name := range files {
		src, err := readString(fsys, name)
		if err != nil {
			return nil
		}
		if p.scans[i] = scanFile(p.show(name), src, p.refs); p.scans[i] == nil {
			return nil
		}
		p.envs = append(p.envs, p.scans[i].dropped...)
	}
	if p.refs["environments"] {
		return nil
	}
	slices.Sort(p.envs)
	p.envs = slices.Compact(p.envs)
	return p
}

// readString reads a file into a string without copying it again.
func readString(fsys fs.FS, name string) (string, error) {
	f, err := fsys.Open(name)
	if err != nil {
		return "", err
	}
	defer f.Close()
	var b strings.Builder
	if info, err := f.Stat(); err == nil {
		b.Grow(int(info.Size()) + 1)
	}
	_, err = io.Copy(&b, f)
	return b.String(), err
}

// keep returns the sources of the package's files with the environments
// not in keep dropped, by name, and their syntax trees, by name as the
// loader shows it; nils when the package cannot be pruned to keep
// safely (an identifier spells a dropped environment, or a file does not
// parse: the loader reports that).
func (p *Package) keep(keep []string) (map[string][]byte, map[string]*ast.File) {
	kept := map[string]bool{}
	for _, k := range keep {
		kept[k] = true
	}
	for _, name := range p.envs {
		if !kept[name] && p.refs[name] {
			return nil, nil
		}
	}
	srcs, trees := map[string][]byte{}, map[string]*ast.File{}
	for i, s := range p.scans {
		name := p.files[i]
		src := s.blanked(kept)
		f, err := parser.ParseFile(p.show(name), src, parser.ParseComments)
		if err != nil {
			return nil, nil
		}
		srcs[name], trees[p.show(name)] = src, f
	}
	// A let clause or alias used only by a dropped environment would be
	// an "unreferenced" error of the pruned package alone.
	after := map[string]bool{}
	for _, f := range trees {
		references(f, after)
	}
	for _, f := range trees {
		if !allBound(f, after) {
			return nil, nil
		}
	}
	return srcs, trees
}

// fileScan is what scanFile found in one file: the byte ranges of the
// plain environment fields, and beside each its environment's name.
type fileScan struct {
	src     string
	drops   []span
	dropped []string
}

// span is a range of bytes to blank; one that held the value of
// `environments` starts with {} instead, so that the field stays.
type span struct {
	from, to int
	empty    bool
}

// blanked is the file's source with the ranges of the environments not
// in keep blanked out so that every remaining token keeps its line and
// column: a range's lines stay as empty lines, and where a range ends
// inside a line its last part becomes spaces. Byte offsets change;
// nothing reads them.
func (s *fileScan) blanked(keep map[string]bool) []byte {
	var out bytes.Buffer
	// Two passes: the first sizes the text, the second writes it.
	for write := range 2 {
		at, size := 0, 0
		for i, d := range s.drops {
			if keep[s.dropped[i]] {
				continue
			}
			text, fill := s.src[d.from:d.to], 0
			lines := strings.Count(text, "\n")
			if last := strings.LastIndexByte(text, '\n'); last >= 0 {
				text = text[last+1:]
			} else if d.empty {
				fill = 2
			}
			if write == 0 {
				size += d.from - at + lines + max(len(text)-fill, 0) + 2
			} else {
				out.WriteString(s.src[at:d.from])
				if d.empty {
					out.WriteString("{}")
				}
				writeRepeat(&out, '\n', lines)
				writeRepeat(&out, ' ', len(text)-fill)
			}
			at = d.to
		}
		if write == 0 {
			out.Grow(size + len(s.src) - at)
		} else {
			out.WriteString(s.src[at:])
		}
	}
	return out.Bytes()
}

func writeRepeat(b *bytes.Buffer, c byte, n int) {
	for range n {
		b.WriteByte(c)
	}
}

// scanFile reads one file's tokens: it adds to refs every identifier that
// is not a field's label, and notes the range and name of each plain
// field of top-level declarations of `environments`. nil when the file
// does not scan.
func scanFile(name string, src string, refs map[string]bool) *fileScan {
	// The common subset first: when Fast gives up part way, what it
	// found is dropped and CUE's scanner reads the file.
	found := map[string]bool{}
	if r := scanTokens(src, found, func(yield func(Token)) bool { return Fast(src, yield) }); r != nil {
		maps.Copy(refs, found)
		return r
	}
	return scanTokens(src, refs, func(yield func(Token)) bool { return Tokens(name, []byte(src), yield) })
}

// scanTokens is scanFile over the tokens read calls yield with; nil when
// read reports false.
func scanTokens(src string, refs map[string]bool, read func(yield func(Token)) bool) *fileScan {
	r := &fileScan{src: src}
	var (
		depth int
		prev  [2]Token // the two tokens before
		d     envDecl
	)
	ok := read(func(cur Token) {
		t := cur.Tok
		// An identifier is a reference unless a colon (after ? or !)
		// makes it a label.
		switch {
		case prev[0].Tok == token.IDENT && t != token.COLON && t != token.OPTION && t != token.NOT:
			refs[prev[0].Lit] = true
		case prev[1].Tok == token.IDENT && (prev[0].Tok == token.OPTION || prev[0].Tok == token.NOT) && t != token.COLON:
			refs[prev[1].Lit] = true
		}
		atStart := prev[0].Tok == token.ILLEGAL || prev[0].Tok == token.COMMA && depth == 0
		prev[1], prev[0] = prev[0], cur
		if atStart {
			d = envDecl{}
			if t == token.IDENT && cur.Lit == "environments" {
				d = envDecl{on: true}
			}
		}
		// Deep inside one environment's value nothing changes but the
		// depth.
		if d.on && !(d.n > 5 && d.inStruct && !d.closed && depth > 1 && len(d.field) >= 3) {
			d.next(cur, depth)
		}
		switch t {
		case token.LBRACE, token.LBRACK, token.LPAREN:
			depth++
		case token.RBRACE, token.RBRACK, token.RPAREN:
			depth--
		}
		if (t == token.COMMA || t == token.EOF) && depth == 0 && d.on {
			switch {
			case !d.ok || slices.ContainsFunc(d.drops, func(s span) bool { return s.to < 0 }):
			case len(r.drops) == 0:
				r.drops, r.dropped = d.drops, d.dropped // the one declaration of most files
			default:
				r.drops = append(r.drops, d.drops...)
				r.dropped = append(r.dropped, d.dropped...)
			}
			d = envDecl{}
		}
	})
	if !ok {
		return nil
	}
	return r
}

// envDecl follows one top-level declaration that starts with
// `environments`, token by token: in `environments: {...}` each plain
// field of the struct may be dropped, in `environments: NAME: ...` the
// field of NAME (leaving `environments: {}`). Anything else
// (`environments: {...} & x`, a pattern, an alias) drops nothing.
type envDecl struct {
	on bool
	n  int // tokens seen
	// inStruct: the declaration is `environments: {`, and its fields
	// are being read; closed: the struct's brace has closed.
	inStruct, closed bool
	field            []Token // the first tokens of the struct's current field
	drops            []span
	dropped          []string
	ok               bool // the declaration has the shape that is pruned
}

func (d *envDecl) next(t Token, depth int) {
	d.n++
	switch {
	case d.n == 1:
		// environments
	case d.n == 2:
		d.on = t.Tok == token.COLON
	case d.n == 3 && t.Tok == token.LBRACE:
		d.inStruct = true
	case d.n <= 5 && !d.inStruct:
		d.field = append(d.field, t)
		if d.n == 5 {
			// environments: NAME: ...
			name, ok := plainLabel(d.field)
			d.on, d.ok = ok, ok
			if ok {
				// environments: {} keeps the field.
				d.drops, d.dropped = []span{{from: d.field[0].Off, to: -1, empty: true}}, []string{name}
			}
		}
	case !d.inStruct:
		if (t.Tok == token.COMMA || t.Tok == token.EOF) && depth == 0 && len(d.drops) == 1 && d.drops[0].to < 0 {
			d.drops[0].to = end(t)
		}
	case d.closed:
		// After the struct: only the declaration's end.
		d.ok = d.ok && (t.Tok == token.COMMA || t.Tok == token.EOF)
	case depth == 1 && (t.Tok == token.COMMA || t.Tok == token.RBRACE):
		// The end of a field of the struct (the brace ends the last).
		if name, ok := plainLabel(d.field); ok {
			to := end(t)
			if t.Tok == token.RBRACE {
				to = t.Off
			}
			d.drops = append(d.drops, span{from: d.field[0].Off, to: to})
			d.dropped = append(d.dropped, name)
		}
		d.field = d.field[:0]
		if t.Tok == token.RBRACE {
			d.closed, d.ok = true, true
		}
	case len(d.field) < 3:
		d.field = append(d.field, t)
	}
}

// end is the offset a field ends at when t ends it: after a comma that
// is in the source, before one inserted at a newline (or the end).
func end(t Token) int {
	if t.Tok == token.COMMA && t.Lit == "," {
		return t.Off + 1
	}
	return t.Off
}

// plainLabel is the name of a field whose tokens start with a regular
// label (an identifier that is neither hidden nor a definition, or a
// string without interpolation), a colon and a value.
func plainLabel(field []Token) (string, bool) {
	if len(field) < 3 || field[1].Tok != token.COLON {
		return "", false
	}
	switch field[2].Tok {
	case token.COMMA, token.EOF, token.RBRACE:
		return "", false
	}
	switch l := field[0]; l.Tok {
	case token.IDENT:
		if strings.HasPrefix(l.Lit, "_") || strings.HasPrefix(l.Lit, "#") {
			return "", false
		}
		return l.Lit, true
	case token.STRING:
		if len(l.Lit) > 2 && l.Lit[0] == '"' && !strings.ContainsAny(l.Lit[1:len(l.Lit)-1], "\\\"") {
			return l.Lit[1 : len(l.Lit)-1], true // the common case, without escapes
		}
		name, err := cuelit.Unquote(l.Lit)
		return name, err == nil
	}
	return "", false
}

// allBound reports whether every let clause and alias of f is referenced.
func allBound(f *ast.File, refs map[string]bool) bool {
	ok := true
	ast.Walk(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.LetClause:
			ok = ok && refs[n.Ident.Name]
		case *ast.Alias:
			ok = ok && refs[n.Ident.Name]
		}
		return ok
	}, nil)
	return ok
}

// references adds to refs every identifier of f that is not the label
// of a field or the name a let clause or alias declares: the names the
// file refers to.
func references(f *ast.File, refs map[string]bool) {
	labels := map[ast.Node]bool{}
	ast.Walk(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.Field:
			labels[n.Label] = true
		case *ast.LetClause:
			labels[n.Ident] = true
		case *ast.Alias:
			labels[n.Ident] = true
		case *ast.Ident:
			if !labels[n] {
				refs[n.Name] = true
			}
		}
		return true
	}, nil)
}

// show is a file's name as positions show it: below the shown folder,
// as the loader shows it.
func (p *Package) show(name string) string {
	return filepath.Join(p.shown, filepath.FromSlash(strings.TrimPrefix(name, "/")))
}

// Envs are the environments the package's plain fields declare, sorted.
func (p *Package) Envs() []string { return p.envs }

// Refers reports whether an identifier of the package, other than a
// field's own label, spells name.
func (p *Package) Refers(name string) bool { return p.refs[name] }
