package load

import (
	"fmt"

	"cuelang.org/go/cue"

	"github.com/karpgen/karpgen/internal/diag"
	"github.com/karpgen/karpgen/internal/fieldpos"
)

// Limits bound what a profile package may expand to, so that a few
// hundred bytes of comprehension cannot keep a render (or the Argo CD
// plugin) busy for minutes: the environments of the package, and the
// objects (node groups, node classes, node pools, node overlays and
// capacity buffers) of one environment. Each is checked before the
// schema is applied; zero fields take the defaults.
type Limits struct {
	Environments int
	Objects      int
}

// Default limits: far above any fleet or cluster seen in practice
// (1,000+ clusters, a few dozen pools each), far below what would take
// minutes.
const (
	DefaultMaxEnvironments = 20000
	DefaultMaxObjects      = 500
)

// Flag names that raise the limits.
const (
	FlagMaxEnvironments = "max-environments"
	FlagMaxObjects      = "max-objects"
)

func (l *Limits) environments() int {
	if l == nil || l.Environments <= 0 {
		return DefaultMaxEnvironments
	}
	return l.Environments
}

func (l *Limits) objects() int {
	if l == nil || l.Objects <= 0 {
		return DefaultMaxObjects
	}
	return l.Objects
}

// objectMaps are the maps of a profile that each become objects.
var objectMaps = []string{"nodeGroups", "nodeClasses", "nodePools", "nodeOverlays", "capacityBuffers"}

// tooManyEnvironments is the finding of a package over the limit.
func (l *Limits) tooManyEnvironments(n int, at cue.Value) []diag.Finding {
	if n <= l.environments() {
		return nil
	}
	return []diag.Finding{{
		Rule: "limits", Severity: diag.Error, Path: "environments", Pos: fieldpos.Of(at),
		Message: fmt.Sprintf("the profiles define %d environments, more than the limit of %d", n, l.environments()),
		Hint:    fmt.Sprintf("raise it with --%s if the fleet is really that large", FlagMaxEnvironments),
	}}
}

// tooManyObjects counts the objects an environment's value expands to,
// before the schema is applied.
func (l *Limits) tooManyObjects(e *Env) []diag.Finding {
	n := 0
	for _, m := range objectMaps {
		iter, err := e.Value().LookupPath(cue.MakePath(cue.Str(m))).Fields()
		if err != nil {
			continue
		}
		for iter.Next() {
			n++
		}
	}
	if n <= l.objects() {
		return nil
	}
	return []diag.Finding{{
		Rule: "limits", Severity: diag.Error, Env: e.Name, Path: "environments." + e.Name, Pos: e.Pos(""),
		Message: fmt.Sprintf("environment %s expands to %d node groups, classes, pools, overlays and buffers, more than the limit of %d", e.Name, n, l.objects()),
		Hint:    fmt.Sprintf("raise it with --%s if the cluster really needs that many", FlagMaxObjects),
	}}
}
