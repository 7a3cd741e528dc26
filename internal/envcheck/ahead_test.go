package envcheck

import (
	"bytes"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"testing"

	"github.com/karpgen/karpgen/generators"
	"github.com/karpgen/karpgen/internal/facts"
	"github.com/karpgen/karpgen/internal/load"
	"github.com/karpgen/karpgen/internal/model"
)

// check loads the one environment of doctor's test profiles with a
// checker that renders ahead; size overrides what the loader says of the
// environments' count (0 leaves it).
func check(t *testing.T, renderAhead bool, size int) (*Checker, *model.Env) {
	t.Helper()
	dir := filepath.Join("..", "doctor", "testdata", "profiles")
	c := New(os.DirFS(dir), dir, "")
	c.RenderAhead = renderAhead
	sized := func(envs int, batched bool) {
		if size > 0 {
			envs = size
		}
		c.Size(envs, batched)
	}
	if _, err := load.Load(load.Folder{FS: os.DirFS(dir), Path: dir, Sized: sized}, nil, c.Check); err != nil {
		t.Fatal(err)
	}
	e := c.Resolved("prod")
	if e == nil {
		t.Fatal("prod was not checked")
	}
	return c, e
}

// TestRenderedAhead: a lone environment's bundle, rendered beside its
// rules, is the one rendering it afterwards gives, file for file; it is
// taken once.
func TestRenderedAhead(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2)) // a second core to render on
	c, e := check(t, true, 0)
	got, ok, err := c.Rendered(e)
	if !ok || err != nil {
		t.Fatalf("Rendered: ok %v, err %v; want a bundle", ok, err)
	}
	want, err := generators.Render(e)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(slices.Sorted(maps.Keys(got.Files)), slices.Sorted(maps.Keys(want.Files))) {
		t.Fatalf("files ahead %v, after %v", slices.Sorted(maps.Keys(got.Files)), slices.Sorted(maps.Keys(want.Files)))
	}
	for p, data := range want.Files {
		if !bytes.Equal(got.Files[p], data) {
			t.Errorf("%s differs between the render ahead and the one after", p)
		}
	}
	if _, ok, _ := c.Rendered(e); ok {
		t.Error("the bundle was given twice")
	}
}

// TestNothingRenderedAhead: without RenderAhead, or with another
// environment loaded beside it, nothing is rendered ahead.
func TestNothingRenderedAhead(t *testing.T) {
	for _, tc := range []struct {
		name        string
		renderAhead bool
		size        int
	}{{"off", false, 0}, {"not alone", true, 2}} {
		c, e := check(t, tc.renderAhead, tc.size)
		if b, ok, err := c.Rendered(e); ok || b != nil || err != nil {
			t.Errorf("%s: Rendered gives %v, %v, %v; want nothing", tc.name, b, ok, err)
		}
	}
}

// TestRenderAheadThatPanics: a render ahead that panics (here on an
// environment without a profile) neither stops the program nor gives a
// bundle: the caller renders again in the open.
func TestRenderAheadThatPanics(t *testing.T) {
	c := New(os.DirFS("."), ".", "")
	c.RenderAhead = true
	c.Size(1, false)
	e := &model.Env{Name: "broken", Facts: facts.Newest()}
	c.renderAhead(e)
	if b, ok, err := c.Rendered(e); ok || b != nil || err != nil {
		t.Errorf("Rendered gives %v, %v, %v; want nothing", b, ok, err)
	}
}
