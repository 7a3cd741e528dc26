// Package load reads a profiles folder (one CUE package with an
// `environments` map, and Jsonnet files) through an fs.FS, unifies every
// environment with the embedded schema in memory, and decodes the result.
// The user's folder is only read.
package load

import (
	"context"
	stderrors "errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"

	"cuelang.org/go/mod/modfile"
	"cuelang.org/go/mod/module"

	"cuelang.org/go/cue"
	"cuelang.org/go/cue/cuecontext"
	"cuelang.org/go/cue/errors"
	"cuelang.org/go/cue/load"
	"golang.org/x/sync/errgroup"

	"github.com/karpgen/karpgen/internal/diag"
	"github.com/karpgen/karpgen/internal/facts"
	"github.com/karpgen/karpgen/internal/fieldpos"
	"github.com/karpgen/karpgen/internal/load/internal/decode"
	"github.com/karpgen/karpgen/internal/load/internal/prune"
	"github.com/karpgen/karpgen/internal/profile"
	"github.com/karpgen/karpgen/internal/util/lazyre"
	"github.com/karpgen/karpgen/schema"
)

// Env is one loaded environment. Its Source is its value as the profiles
// wrote it and where each field was written; in a package loaded in
// batches, only while it is checked.
type Env struct {
	Name    string
	Profile *profile.Profile
	fieldpos.Source
}

// Result is what a profiles folder holds.
type Result struct {
	// Envs are the environments asked for, sorted by name. When Findings
	// has errors, only the environments that decoded are present.
	Envs []Env
	// Names are all environment names in the folder, sorted.
	Names    []string
	Findings []diag.Finding
}

// UnknownEnvError is returned when an environment asked for does not exist.
type UnknownEnvError struct {
	Name  string
	Known []string
}

func (e *UnknownEnvError) Error() string {
	known := strings.Join(e.Known, ", ")
	if len(e.Known) > 10 {
		known = strings.Join(e.Known[:10], ", ") + fmt.Sprintf(" and %d more", len(e.Known)-10)
	}
	if s := diag.Closest(e.Name, e.Known); s != "" {
		return fmt.Sprintf("no environment %q in the profiles; did you mean %q? (known: %s)", e.Name, s, known)
	}
	return fmt.Sprintf("no environment %q in the profiles (known: %s)", e.Name, known)
}

// Check is run on every environment that unified and decoded, in the
// worker that evaluated it (CUE values are not shared between workers).
type Check func(*Env) []diag.Finding

// minPerWorker is how many environments make another worker worth it.
const minPerWorker = 16

// worker evaluates environments in a CUE context of its own.
type worker struct {
	// profile is the schema's #Profile, which each environment is
	// unified with.
	profile   cue.Value
	limits    *Limits
	explainer *explainer
	// envs is the environments struct of the CUE package.
	envs    cue.Value
	ctx     *cue.Context
	schema  cue.Value
	raws    map[string]cue.Value
	sources map[string]*jsonnetFile
}

// Folder is a profiles folder: its files, read only through FS, and the
// path its files are shown under in findings. Progress, when set, is told
// what is being evaluated.
type Folder struct {
	FS       fs.FS
	Path     string
	Progress *Progress
	// Limits bound what the profiles may expand to (defaults when nil).
	Limits *Limits
	// Sized, when set, is told how many environments will be evaluated,
	// before they are, and whether in batches (the command tunes its
	// collector for a fleet).
	Sized func(envs int, batched bool)
}

// Progress says what a load is evaluating, for a caller that gives up
// waiting: a Jsonnet file, the CUE package, or an environment.
type Progress struct{ v atomic.Value }

// Set records what is being evaluated.
func (p *Progress) Set(what string) {
	if p != nil {
		p.v.Store(what)
	}
}

// String is what was being evaluated last.
func (p *Progress) String() string {
	if s, ok := p.v.Load().(string); ok {
		return s
	}
	return "the profiles"
}

// show is the name a file of the folder is shown under.
func (f Folder) show(name string) string {
	return filepath.Join(f.Path, filepath.FromSlash(strings.TrimPrefix(name, "/")))
}

// Load reads the profiles of a folder and returns the environments named
// in only (all when empty), unified with the schema and decoded, with the
// findings of check. Problems in the profiles are findings; the error is
// for folders that cannot be read and unknown environment names. Large
// fleets are evaluated by parallel workers, one CUE context each.
func Load(dir Folder, only []string, check Check) (*Result, error) {
	return loadPackage(dir, only, check, true)
}

// loadPackage is Load; batched says whether a large package may be
// evaluated in batches.
func loadPackage(dir Folder, only []string, check Check, batched bool) (*Result, error) {
	only = slices.Compact(slices.Sorted(slices.Values(only)))
	cueFiles, err := fs.Glob(dir.FS, "*.cue")
	if err != nil {
		return nil, fmt.Errorf("reading profiles: %w", err)
	}
	jsonnetFiles, _ := fs.Glob(dir.FS, "*.jsonnet")
	if len(cueFiles)+len(jsonnetFiles) == 0 {
		return nil, fmt.Errorf("reading profiles: no .cue or .jsonnet files in %s", dir.Path)
	}
	res := &Result{}
	var evaluated []*evaluatedJsonnet
	for _, name := range jsonnetFiles {
		dir.Progress.Set(dir.show(name))
		ej, fs := evalJsonnet(dir, name)
		res.Findings = append(res.Findings, fs...)
		evaluated = append(evaluated, ej)
	}
	if len(res.Findings) > 0 {
		return res, nil
	}
	if batched && len(only) == 0 && len(evaluated) == 0 {
		if res, err := loadInBatches(dir, cueFiles, check); res != nil || err != nil {
			return res, err
		}
	}
	first, fs, err := newWorker(dir, cueFiles, evaluated, only)
	if err != nil {
		return nil, err
	}
	if len(fs) > 0 {
		res.Findings = fs
		return res, nil
	}
	res.Names = sortedNames(first.raws)
	if fs := dir.Limits.tooManyEnvironments(len(res.Names), first.envs); len(fs) > 0 {
		res.Findings = fs
		return res, nil
	}
	names := res.Names
	if len(only) > 0 {
		names = nil
		for _, n := range only {
			if _, ok := first.raws[n]; !ok {
				all, _, err := newWorker(dir, cueFiles, evaluated, nil)
				if err != nil {
					return nil, err
				}
				return nil, &UnknownEnvError{Name: n, Known: sortedNames(all.raws)}
			}
			names = append(names, n)
		}
		sort.Strings(names)
		names = slices.Compact(names)
	}

	if dir.Sized != nil {
		dir.Sized(len(names), false)
	}
	n := max(1, min(runtime.GOMAXPROCS(0), (len(names)+minPerWorker-1)/minPerWorker))
	envs := make([]*Env, len(names))
	findings := make([][]diag.Finding, len(names))
	var g errgroup.Group
	for k := range n {
		g.Go(func() error {
			w := first
			if k > 0 {
				var err error
				if w, _, err = newWorker(dir, cueFiles, evaluated, only); err != nil {
					return err
				}
			}
			for i := k; i < len(names); i += n {
				dir.Progress.Set("environment " + names[i])
				env, fs := w.unify(names[i])
				if env != nil && check != nil {
					fs = append(fs, check(env)...)
				}
				envs[i], findings[i] = env, fs
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	res.gather(envs, findings)
	return res, nil
}

// gather adds, in the order of the names, each environment's findings
// and the environments that decoded.
func (res *Result) gather(envs []*Env, findings [][]diag.Finding) {
	for i := range envs {
		res.Findings = append(res.Findings, findings[i]...)
		if envs[i] != nil {
			res.Envs = append(res.Envs, *envs[i])
		}
	}
}

// newWorker compiles the schema and the profiles in a new CUE context. It
// takes in the environments named in only, or all of them, and prunes
// the package to them.
func newWorker(dir Folder, cueFiles []string, evaluated []*evaluatedJsonnet, only []string) (*worker, []diag.Finding, error) {
	return buildWorker(dir, cueFiles, evaluated, only, func(cfg *load.Config) {
		if len(only) > 0 {
			prune.Prune(cfg, dir.FS, dir.Path, cueFiles, only)
		}
	})
}

// buildWorker is newWorker with the loader's configuration left to
// configure.
func buildWorker(dir Folder, cueFiles []string, evaluated []*evaluatedJsonnet, only []string, configure func(*load.Config)) (*worker, []diag.Finding, error) {
	// The loader's configuration (pruning reads every file) is made while
	// the schema compiles.
	cfg := &load.Config{
		FS: dir.FS, Dir: "/", FromFSPath: dir.show,
		// No module registry, no environment: dependencies are never
		// fetched.
		Registry: noRegistry{},
		Env:      []string{},
	}
	configured := make(chan struct{})
	go func() {
		defer close(configured)
		if len(cueFiles) > 0 {
			configure(cfg)
		}
	}()
	ctx := cuecontext.New()
	s := ctx.CompileBytes(schema.Source(), cue.Filename(schema.Filename))
	<-configured
	if err := s.Err(); err != nil {
		return nil, nil, fmt.Errorf("compiling the embedded schema: %w", err)
	}
	w := &worker{limits: dir.Limits, explainer: newExplainer(s), profile: s.LookupPath(cue.ParsePath("#Profile")), ctx: ctx, schema: s, raws: map[string]cue.Value{}, sources: map[string]*jsonnetFile{}}
	if len(cueFiles) > 0 {
		dir.Progress.Set("the CUE package " + strings.Join(showAll(dir, cueFiles), ", "))
		insts := load.Instances([]string{"."}, cfg)
		if err := insts[0].Err; err != nil {
			return nil, packageFindings(dir, cueFiles, err), nil
		}
		v := ctx.BuildInstance(insts[0])
		if err := v.Err(); err != nil {
			// The package has errors: collect all of them, not the first.
			if all := v.Validate(); all != nil {
				err = all
			}
			return nil, packageFindings(dir, cueFiles, err), nil
		}
		w.envs = v.LookupPath(cue.ParsePath("environments"))
		if fs := collect(v, w.raws, nil, len(evaluated) == 0, only); len(fs) > 0 {
			return nil, fs, nil
		}
	}
	var out []diag.Finding
	for _, ej := range evaluated {
		jf, fs := ej.build(ctx)
		if len(fs) == 0 {
			fs = collect(jf.value, w.raws, func(name string) { w.sources[name] = jf }, true, only)
		}
		out = append(out, fs...)
	}
	return w, out, nil
}

// collect adds the environments of a profile value to raws (those named
// in only, when given: the others are not evaluated); seen is told of
// each name. A value without environments is a finding when required.
func collect(v cue.Value, raws map[string]cue.Value, seen func(string), required bool, only []string) []diag.Finding {
	envs := v.LookupPath(cue.ParsePath("environments"))
	if !envs.Exists() {
		if !required {
			return nil
		}
		return []diag.Finding{{
			Rule: "schema", Severity: diag.Error, Path: "environments",
			Message: "the profiles define no `environments` map",
			Pos:     fieldpos.Of(v), Hint: "add `environments: <name>: {...}` with one profile per environment",
		}}
	}
	var out []diag.Finding
	add := func(name string, v cue.Value) {
		if _, dup := raws[name]; dup {
			out = append(out, diag.Finding{
				Rule: "schema", Severity: diag.Error, Env: name, Path: "environments." + name,
				Message: fmt.Sprintf("environment %q is defined twice", name), Pos: fieldpos.Of(v),
				Hint: "each environment lives in one file: the CUE package or one Jsonnet file",
			})
			return
		}
		raws[name] = v
		if seen != nil {
			seen(name)
		}
	}
	if len(only) > 0 {
		for _, name := range only {
			if v := envs.LookupPath(cue.MakePath(cue.Str(name))); v.Exists() {
				add(name, v)
			}
		}
		return out
	}
	iter, err := envs.Fields()
	if err != nil {
		return schemaFindings(err)
	}
	n := 0
	for iter.Next() {
		if sel := iter.Selector(); sel.IsString() {
			add(sel.Unquoted(), iter.Value())
			n++
		}
	}
	if n == 0 && required {
		out = append(out, diag.Finding{
			Rule: "schema", Severity: diag.Error, Path: "environments",
			Message: "`environments` is empty: there is nothing to render",
			Pos:     fieldpos.Of(envs), Hint: "add `environments: <name>: {...}` with one profile per environment",
		})
	}
	return out
}

func sortedNames(m map[string]cue.Value) []string { return slices.Sorted(maps.Keys(m)) }

func (w *worker) unify(name string) (*Env, []diag.Finding) {
	raw := w.raws[name]
	env := &Env{Name: name, Source: fieldpos.CUE(raw)}
	if jf := w.sources[name]; jf != nil {
		env.Source = fieldpos.JsonnetEnv(raw, jf.tree, name)
	}
	if fs := w.limits.tooManyObjects(env); len(fs) > 0 {
		return nil, fs
	}
	u := w.profile.Unify(raw)
	if err := u.Validate(cue.Concrete(true)); err != nil {
		return nil, env.explain(w.explainer, env.suggest(u, env.placed(env.rooted(schemaFindings(err)))))
	}
	p := &profile.Profile{}
	if decode.Decode(u, p) != nil {
		// CUE's own decoder says what is wrong.
		p = &profile.Profile{}
		if err := u.Decode(p); err != nil {
			if f, ok := overflow(u, name); ok {
				return nil, env.placed(env.rooted([]diag.Finding{f}))
			}
			return nil, env.placed(env.rooted(schemaFindings(err)))
		}
	}
	p.Env = name
	if p.Cluster.Partition == "" {
		p.Cluster.Partition = facts.PartitionOf(p.Cluster.Region)
	}
	env.Profile = p
	return env, nil
}

// rooted names the fields of findings as the profiles do: the
// environment is unified with #Profile alone (which costs the same
// whatever the size of the package), so CUE's paths start there.
func (e *Env) rooted(fs []diag.Finding) []diag.Finding {
	prefix := "environments." + e.Name
	for i, f := range fs {
		if rest, ok := strings.CutPrefix(f.Path, "#Profile"); ok {
			fs[i].Path = prefix + rest
		}
		fs[i].Message = strings.ReplaceAll(fs[i].Message, "#Profile.", prefix+".")
	}
	return fs
}

// overflow finds an integer of the environment too large for the 64 bits
// the profile's numbers have; CUE's own error names neither the value nor
// the field.
func overflow(u cue.Value, env string) (diag.Finding, bool) {
	var found diag.Finding
	u.Walk(func(v cue.Value) bool {
		if found.Message != "" {
			return false
		}
		if v.Kind() == cue.IntKind {
			if _, err := v.Int64(); err != nil {
				path := v.Path().String()
				found = diag.Finding{Rule: "schema", Severity: diag.Error, Path: path, Pos: fieldpos.Of(v),
					Message: fmt.Sprintf("%s: %v does not fit a 64-bit integer", path, v)}
			}
		}
		return true
	}, nil)
	return found, found.Message != ""
}

// suggest names the closest known field for a field the schema does not
// allow.
func (e *Env) suggest(u cue.Value, fs []diag.Finding) []diag.Finding {
	prefix := "environments." + e.Name + "."
	for i, f := range fs {
		if !strings.HasSuffix(f.Message, "field not allowed") || !strings.HasPrefix(f.Path, prefix) {
			continue
		}
		sels := cue.ParsePath(strings.TrimPrefix(f.Path, prefix)).Selectors()
		if len(sels) == 0 || !sels[len(sels)-1].IsString() {
			continue
		}
		bad := sels[len(sels)-1].Unquoted()
		iter, err := u.LookupPath(cue.MakePath(sels[:len(sels)-1]...)).Fields(cue.Optional(true))
		if err != nil {
			continue
		}
		var known []string
		for iter.Next() {
			if sel := iter.Selector(); sel.IsString() && sel.Unquoted() != bad {
				known = append(known, sel.Unquoted())
			}
		}
		if s := diag.Closest(bad, known); s != "" {
			fs[i].Hint = fmt.Sprintf("did you mean %q?", s)
		}
	}
	return fs
}

// placed gives findings that CUE left without a position (an incomplete
// value, say) the position of the nearest field the profile sets.
func (e *Env) placed(fs []diag.Finding) []diag.Finding {
	prefix := "environments." + e.Name
	for i := range fs {
		fs[i].Env = e.Name
		if e.IsJsonnet() {
			// CUE saw the evaluated JSON: its positions are not the file's.
			fs[i].Pos = diag.Pos{}
			var also []diag.Pos
			for _, p := range fs[i].Also {
				if p.File == schema.Filename {
					also = append(also, p)
				}
			}
			fs[i].Also = also
		}
		if fs[i].Pos.IsValid() || !strings.HasPrefix(fs[i].Path, prefix) {
			continue
		}
		rest := strings.TrimPrefix(strings.TrimPrefix(fs[i].Path, prefix), ".")
		fs[i].Pos = e.Pos(rest)
	}
	return fs
}

// schemaFindings turns CUE errors into findings, each at the first
// position in the profiles; positions in the schema are kept as "see also".
func schemaFindings(err error) []diag.Finding {
	var out []diag.Finding
	errs := errors.Errors(err)
	for i, e := range errs {
		if isWrapper(e, errs[i+1:]) {
			continue
		}
		format, args := e.Msg()
		msg := fmt.Sprintf(format, args...)
		path := strings.Join(e.Path(), ".")
		rule := "schema"
		if format == "import failed" {
			// The reason is in the wrapped error: say it, without the
			// package path CUE puts first.
			rule, path = "import", ""
			msg = strings.TrimSuffix(e.Error(), ":")
			if _, rest, ok := strings.Cut(msg, "import failed: "); ok {
				msg = "import failed: " + posPrefix().ReplaceAllString(rest, "")
			}
		}
		if path != "" {
			msg = path + ": " + msg
		}
		if strings.TrimSpace(msg) == "" || strings.HasSuffix(msg, ": ") {
			msg = strings.TrimSpace(posPrefix().ReplaceAllString(e.Error(), ""))
		}
		f := diag.Finding{Rule: rule, Severity: diag.Error, Path: path, Message: msg}
		var schemaPos diag.Pos
		for _, p := range errors.Positions(e) {
			dp := fieldpos.FromToken(p)
			if !dp.IsValid() {
				continue
			}
			switch {
			case dp.File == schema.Filename:
				schemaPos = dp // the last is the most specific
			case !f.Pos.IsValid():
				f.Pos = dp
			case dp != f.Pos && !slices.Contains(f.Also, dp):
				// A conflict: the other side, in the profiles too.
				f.Also = append(f.Also, dp)
			}
		}
		if schemaPos.IsValid() {
			f.Also = append(f.Also, schemaPos)
		}
		if !f.Pos.IsValid() && len(f.Also) > 0 {
			f.Pos, f.Also = f.Also[0], f.Also[1:]
		}
		if strings.Contains(msg, "field not allowed") {
			f.Hint = "the schema has no such field: check its spelling and place (karpgen's schema/profile.cue lists every field)"
		}
		// Alternatives of one disjunction fail at the same place: the
		// last names the type, which says the most.
		if n := len(out); n > 0 && out[n-1].Path == f.Path && out[n-1].Pos == f.Pos {
			out[n-1] = f
			continue
		}
		out = append(out, f)
	}
	return out
}

func showAll(dir Folder, names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = dir.show(n)
	}
	return out
}

// packageFindings are the findings of an error of the package as a
// whole. One CUE gives without a position is placed at the file it is
// about: the module file for module errors, else the package's first file.
func packageFindings(dir Folder, cueFiles []string, err error) []diag.Finding {
	out := schemaFindings(err)
	for i := range out {
		if out[i].Pos.IsValid() {
			continue
		}
		file := cueFiles[0]
		if name, ok := escaped(out[i].Message); ok {
			out[i].Message = fmt.Sprintf("%s: refused: the path leaves the profiles folder (karpgen reads only files inside it, symbolic links resolved)", name)
			out[i].Rule = "hermetic"
			if pos, ok := mention(dir, cueFiles, name); ok {
				out[i].Pos = pos
				continue
			}
		}
		if strings.Contains(out[i].Message, "module") {
			if _, err := fs.Stat(dir.FS, "cue.mod/module.cue"); err == nil {
				file = "cue.mod/module.cue"
			}
		}
		out[i].Pos = diag.Pos{File: dir.show(file), Line: 1, Col: 1}
	}
	return out
}

// escapedRE is how os.Root refuses a path that leaves it.
var escapedRE = lazyre.New(`(?:openat|statat|lstatat|readlinkat|open|stat|lstat) ([^:]+): path escapes from parent`)

// escaped returns the name of a file os.Root refused to read.
func escaped(msg string) (string, bool) {
	m := escapedRE().FindStringSubmatch(msg)
	if m == nil {
		return "", false
	}
	return m[1], true
}

// mention is the first place a CUE file of the package names file, in
// quotes (an @embed attribute, say).
func mention(dir Folder, cueFiles []string, file string) (diag.Pos, bool) {
	for _, name := range cueFiles {
		src, err := fs.ReadFile(dir.FS, name)
		if err != nil {
			continue
		}
		for i, line := range strings.Split(string(src), "\n") {
			if col := strings.Index(line, strconv.Quote(file)); col >= 0 {
				return diag.Pos{File: dir.show(name), Line: i + 1, Col: col + 1}, true
			}
		}
	}
	return diag.Pos{}, false
}

// posPrefix is a position CUE writes at the start of a message.
var posPrefix = lazyre.New(`^\S+:\d+:\d+: `)

// isWrapper reports an "N errors in empty disjunction" error whose
// details follow it.
func isWrapper(e errors.Error, rest []errors.Error) bool {
	format, _ := e.Msg()
	if !strings.Contains(format, "errors in empty disjunction") || len(rest) == 0 {
		return false
	}
	return strings.Join(rest[0].Path(), ".") == strings.Join(e.Path(), ".")
}

// Open opens a profiles folder on disk. Every read goes through an
// os.Root, so no path or symlink reaches outside the folder. The caller
// closes it.
func Open(dir string) (Folder, func() error, error) {
	root, err := os.OpenRoot(dir)
	if stderrors.Is(err, fs.ErrNotExist) {
		return Folder{}, nil, fmt.Errorf("reading profiles: there is no folder %s: start one with `karpgen init`, or name yours with --profiles", dir)
	}
	if err != nil {
		return Folder{}, nil, fmt.Errorf("reading profiles: %w", err)
	}
	return Folder{FS: root.FS(), Path: dir}, root.Close, nil
}

// noRegistry is the CUE module registry of a karpgen load: it fetches
// nothing, so evaluating a profile never reaches the network or a module
// cache outside the profiles folder.
type noRegistry struct{}

func (noRegistry) refuse(shown, path string) error {
	return fmt.Errorf("module %s: karpgen fetches no CUE modules (no registry, no module cache); vendor it inside the profiles folder "+
		"and point at it from cue.mod/local-module.cue (deps: %q: replaceWith: \"./vendor/...\")", shown, path)
}

func (r noRegistry) ModFile(_ context.Context, mv module.Version) (*modfile.File, error) {
	return nil, r.refuse(mv.String(), mv.Path())
}

func (r noRegistry) Fetch(_ context.Context, mv module.Version) (module.SourceLoc, error) {
	return module.SourceLoc{}, r.refuse(mv.String(), mv.Path())
}

func (r noRegistry) ModuleVersions(_ context.Context, mpath string) ([]string, error) {
	return nil, r.refuse(mpath, mpath)
}
