package importer

import (
	"fmt"
	"reflect"

	"github.com/karpgen/karpgen/internal/profile/form"
)

// fill reads the input's n into dst, a field of the profile's types (a
// node class's networkInterfaces, the controller's resources), key by
// key: a key the type has no field for, or a value of another kind, is
// dropped with a note of rule at its line and the rest kept. what names
// the field in the note.
func (im *importer) fill(n node, dst reflect.Value, rule, what string) {
	switch {
	case dst.Kind() == reflect.Pointer:
		v := reflect.New(dst.Type().Elem())
		im.fill(n, v.Elem(), rule, what)
		dst.Set(v)
	case dst.Kind() == reflect.Struct:
		for _, k := range n.keys() {
			f, ok := form.Field(dst, k)
			if !ok {
				im.note(rule, n.keyPos(k), "%s.%s has no place in a karpgen profile; dropped", what, k)
				continue
			}
			if v := n.get(k); v.ok() {
				im.fill(v, f, rule, what+"."+k)
			}
		}
	case dst.Kind() == reflect.Slice && dst.Type().Elem().Kind() == reflect.Struct:
		list := reflect.MakeSlice(dst.Type(), 0, len(n.list()))
		for i, e := range n.list() {
			x := reflect.New(dst.Type().Elem()).Elem()
			im.fill(e, x, rule, fmt.Sprintf("%s[%d]", what, i))
			list = reflect.Append(list, x)
		}
		dst.Set(list)
	default:
		v := reflect.New(dst.Type())
		if err := form.Decode(n.plain(), v.Interface()); err != nil {
			im.note(rule, n.pos(), "%s: %v; dropped", what, err)
			return
		}
		dst.Set(v.Elem())
	}
}
