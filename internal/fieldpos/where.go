// Package fieldpos finds where a profile's fields were written, in the CUE
// package or in a Jsonnet file, from a path below an environment
// ("nodePools.app.zones[1]"): the positions of findings about a loaded
// environment.
package fieldpos

import (
	"sync"

	"cuelang.org/go/cue"
	"cuelang.org/go/cue/token"

	"github.com/karpgen/karpgen/internal/diag"
)

// Source is one environment as the profiles wrote it. The zero Source
// places no field and has none: the upgrade planner checks a target
// profile with it.
type Source struct {
	// value is the environment's value before unification with the
	// schema: its positions are the user's own.
	value cue.Value
	// jsonnet is the file a Jsonnet environment came from, and env its
	// path in that file (environments.NAME); CUE saw only its JSON.
	jsonnet *Jsonnet
	env     []cue.Selector
}

// CUE is the source of an environment of the CUE package.
func CUE(v cue.Value) Source { return Source{value: v} }

// JsonnetEnv is the source of environment name of a Jsonnet file,
// evaluated to v.
func JsonnetEnv(v cue.Value, file *Jsonnet, name string) Source {
	return Source{value: v, jsonnet: file, env: []cue.Selector{cue.Str("environments"), cue.Str(name)}}
}

// Value is the environment's value as the profiles wrote it, before
// unification with the schema.
func (s Source) Value() cue.Value { return s.value }

// IsJsonnet reports an environment of a Jsonnet file.
func (s Source) IsJsonnet() bool { return s.jsonnet != nil }

// Pos is the position of the field at path. A field the profile leaves
// to a default has no position of its own: the nearest enclosing
// field's is used.
func (s Source) Pos(path string) diag.Pos {
	sels := parsePath(path).Selectors()
	if s.jsonnet != nil {
		return s.jsonnet.Pos(append(append([]cue.Selector(nil), s.env...), sels...))
	}
	for i := len(sels); i >= 0; i-- {
		v := s.value.LookupPath(cue.MakePath(sels[:i]...))
		if v.Exists() {
			if p := Of(v); p.IsValid() {
				return p
			}
		}
	}
	return diag.Pos{}
}

// Has reports whether the profile itself sets the field at path.
func (s Source) Has(path string) bool {
	return s.value.LookupPath(parsePath(path)).Exists()
}

// paths are the paths the rules ask about, parsed once: a fleet asks the
// same few of every environment.
var paths sync.Map

func parsePath(path string) cue.Path {
	if p, ok := paths.Load(path); ok {
		return p.(cue.Path)
	}
	p := cue.ParsePath(path)
	paths.Store(path, p)
	return p
}

// Of is the position of a CUE value.
func Of(v cue.Value) diag.Pos { return FromToken(v.Pos()) }

// FromToken is a CUE position as a finding's.
func FromToken(p token.Pos) diag.Pos {
	if !p.IsValid() {
		return diag.Pos{}
	}
	return diag.Pos{File: p.Filename(), Line: p.Line(), Col: p.Column()}
}
