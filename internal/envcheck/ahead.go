package envcheck

import (
	"runtime"

	"github.com/karpgen/karpgen/generators"
	"github.com/karpgen/karpgen/internal/model"
)

// A command that renders what it checks (render, build) may have the
// checker render an environment on the second core while the rule
// catalog checks it (RenderAhead), when the environment is the only one
// loaded: the rules and the files then run at once instead of one after
// the other. With more environments the loader and the renderer already
// keep every core busy. Most environments pass their rules, so the bundle
// is wanted; when the rules refuse one, its bundle is dropped unseen.
//
// A render of an environment the rules would refuse may fail in ways a
// checked one cannot: a render ahead that panics is not kept, and the
// caller renders the environment again in the open, where the panic is
// the command's, as without this.

// rendered is a bundle rendered ahead; ok is false when the render
// panicked.
type rendered struct {
	b   *model.Bundle
	err error
	ok  bool
}

// renderAhead renders e in the background, if it is the only environment.
func (c *Checker) renderAhead(e *model.Env) {
	if !c.RenderAhead || c.envs != 1 || runtime.GOMAXPROCS(0) < 2 {
		return
	}
	ch := make(chan rendered, 1)
	c.mu.Lock()
	c.ahead[e] = ch
	c.mu.Unlock()
	go func() {
		var r rendered
		defer func() {
			if recover() != nil {
				r = rendered{}
			}
			ch <- r
		}()
		r.b, r.err = generators.Render(e)
		r.ok = true
	}()
}

// Rendered is the bundle of e rendered beside its rules, once the render
// is done; ok is false when there is none to take (render e then). A
// bundle is taken once.
func (c *Checker) Rendered(e *model.Env) (b *model.Bundle, ok bool, err error) {
	c.mu.Lock()
	ch := c.ahead[e]
	delete(c.ahead, e)
	c.mu.Unlock()
	if ch == nil {
		return nil, false, nil
	}
	r := <-ch
	return r.b, r.ok, r.err
}
