package drift

import (
	"fmt"
	"strings"
	"sync"

	"github.com/google/cel-go/cel"
)

var (
	celOnce sync.Once
	celEnv  *cel.Env
	celErr  error
	celMu   sync.Mutex
	celProg = map[string]cel.Program{}
)

// program compiles a transition rule once.
func program(rule string) (cel.Program, error) {
	celOnce.Do(func() {
		celEnv, celErr = cel.NewEnv(cel.Variable("self", cel.DynType), cel.Variable("oldSelf", cel.DynType))
	})
	if celErr != nil {
		return nil, celErr
	}
	celMu.Lock()
	defer celMu.Unlock()
	if p, ok := celProg[rule]; ok {
		return p, nil
	}
	ast, iss := celEnv.Compile(rule)
	if iss.Err() != nil {
		return nil, fmt.Errorf("transition rule %q: %w", rule, iss.Err())
	}
	p, err := celEnv.Program(ast, cel.CostLimit(1_000_000))
	if err != nil {
		return nil, err
	}
	celProg[rule] = p
	return p, nil
}

// transitions applies the CRD's transition rules, as the API server does
// on an update: a rule runs where the field is set on both sides, and one
// that fails makes the change a recreate. Rules on the items of a list
// (whose old item the server pairs by key) are not applied.
func (c *comparison) transitions() error {
	if c.old == nil || c.new == nil {
		return nil
	}
	for _, t := range c.k.Transitions {
		if strings.Contains(t.Path, "[]") {
			continue
		}
		keys := strings.Split(t.Path, ".")
		o, n := Dig(c.old, keys...), Dig(c.new, keys...)
		if o == nil || n == nil {
			continue
		}
		p, err := program(t.Rule)
		if err != nil {
			return err
		}
		v, _, err := p.Eval(map[string]any{"self": n, "oldSelf": o})
		if err != nil {
			return fmt.Errorf("transition rule %q at %s: %w", t.Rule, t.Path, err)
		}
		if ok, isBool := v.Value().(bool); isBool && !ok {
			// The rule reads a whole object: its changes are listed
			// one by one above, so the values are not repeated here.
			if _, ok := o.(map[string]any); ok {
				o, n = nil, nil
			}
			c.out = append(c.out, Change{Path: t.Path, From: o, To: n, Effect: Recreate, Reason: t.Message,
				Why: fmt.Sprintf("the CRD's rule %s refuses the change in place: delete the object and create it again, which replaces its nodes", t.Rule)})
		}
	}
	return nil
}
