package output

import (
	"fmt"
	"slices"
	"strings"

	"github.com/karpgen/karpgen/internal/util/manifest"
)

// objectID is what names a Kubernetes object: its group and kind, its
// namespace and its name.
type objectID struct {
	Group, Kind, Namespace, Name string
}

func (id objectID) String() string {
	gk := id.Kind
	if id.Group != "" {
		gk = id.Group + "/" + id.Kind
	}
	if id.Namespace != "" {
		return fmt.Sprintf("%s %s/%s", gk, id.Namespace, id.Name)
	}
	return fmt.Sprintf("%s %s", gk, id.Name)
}

// allowed reports whether the kind is one of allow ("Kind" or
// "group/Kind").
func (id objectID) allowed(allow []string) bool {
	return slices.Contains(allow, id.Kind) || slices.Contains(allow, id.Group+"/"+id.Kind)
}

// objectIDs reads the names of the objects of a YAML stream.
func objectIDs(stream []byte) ([]objectID, error) {
	objs, err := manifest.All[manifest.Header](stream)
	if err != nil {
		return nil, fmt.Errorf("reading the built objects: %w", err)
	}
	out := make([]objectID, len(objs))
	for i, o := range objs {
		out[i] = objectID{Group: o.Group(), Kind: o.Kind, Namespace: o.Metadata.Namespace, Name: o.Metadata.Name}
	}
	return out, nil
}

// OverlayError lists what an overlay did beyond patching, labelling and
// annotating the bundle's objects.
type OverlayError struct {
	Env              string
	Added, Removed   []string
	AllowKindsNeeded []string
}

func (e *OverlayError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "the overlay of %s may only patch, label and annotate the objects karpgen generated:", e.Env)
	for _, a := range e.Added {
		fmt.Fprintf(&b, "\n  adds %s, which the bundle does not hold", a)
	}
	for _, r := range e.Removed {
		fmt.Fprintf(&b, "\n  removes or renames %s", r)
	}
	fmt.Fprintf(&b, "\nto let an overlay add such objects deliberately, run build with --allow-kinds %s", strings.Join(e.AllowKindsNeeded, ","))
	return b.String()
}

// onlyOwnObjects refuses an overlaid stream that holds an object the
// bundle alone does not (a new object, or one whose kind, name or
// namespace changed) or lacks one of the bundle's, unless its kind is in
// allow.
func onlyOwnObjects(env string, base, overlaid []byte, allow []string) error {
	have, err := objectIDs(base)
	if err != nil {
		return err
	}
	got, err := objectIDs(overlaid)
	if err != nil {
		return err
	}
	e := &OverlayError{Env: env}
	kinds := map[string]bool{}
	for _, id := range got {
		if !slices.Contains(have, id) && !id.allowed(allow) {
			e.Added = append(e.Added, id.String())
			kinds[id.Kind] = true
		}
	}
	for _, id := range have {
		if !slices.Contains(got, id) && !id.allowed(allow) {
			e.Removed = append(e.Removed, id.String())
			kinds[id.Kind] = true
		}
	}
	if len(e.Added)+len(e.Removed) == 0 {
		return nil
	}
	for k := range kinds {
		e.AllowKindsNeeded = append(e.AllowKindsNeeded, k)
	}
	slices.Sort(e.AllowKindsNeeded)
	return e
}
