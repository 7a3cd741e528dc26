package lint

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/karpgen/karpgen/internal/bench/fleet"
	"github.com/karpgen/karpgen/internal/load"
	"github.com/karpgen/karpgen/internal/profile"
	"github.com/karpgen/karpgen/internal/util/jsonfields"
)

// profilesOf loads every environment of a profiles folder.
func profilesOf(t *testing.T, dir string) []*profile.Profile {
	t.Helper()
	f, closeFn, err := load.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer closeFn()
	res, err := load.Load(f, nil, nil)
	if err != nil || len(res.Envs) == 0 {
		t.Fatalf("%s: %v, findings %v", dir, err, res.Findings)
	}
	var out []*profile.Profile
	for _, e := range res.Envs {
		out = append(out, e.Profile)
	}
	return out
}

// reported is what walkText, through JSON, finds in p.
func reported(p *profile.Profile) []string {
	var out []string
	textThroughJSON(p, func(path, s string, key bool) { out = append(out, path) })
	return out
}

// TestTextOKAsJSON: textOK, which spares a profile the trip through
// JSON, never passes what the trip would report. Each string of real
// profiles is given, one at a time, a line break, an escape sequence or a
// bidirectional override: wherever JSON shows the string outside
// userData, textOK refuses it and walkText reports exactly that path.
func TestTextOKAsJSON(t *testing.T) {
	dir := t.TempDir()
	if err := fleet.Write(dir, 2); err != nil {
		t.Fatal(err)
	}
	profiles := append(profilesOf(t, filepath.Join("..", "..", "profiles")), profilesOf(t, dir)...)
	mutated, userData := 0, 0
	for _, p := range profiles {
		if !textOK(reflect.ValueOf(p)) || len(reported(p)) > 0 {
			t.Fatalf("%s: a valid profile is refused (%v)", p.Env, reported(p))
		}
		for _, bad := range []string{"\n", "\x1b[31m", "\u202e"} {
			eachString(reflect.ValueOf(p).Elem(), nil, func(path []string, set func(string), old string) {
				set(old + bad)
				defer set(old)
				ok, got := textOK(reflect.ValueOf(p)), reported(p)
				if ok && len(got) > 0 {
					t.Errorf("%s: %q after %s passes textOK; JSON reports %v", p.Env, bad, strings.Join(path, "."), got)
				}
				if path[len(path)-1] == "userData" {
					userData++
					if len(got) > 0 {
						t.Errorf("%s: userData is reported: %v", p.Env, got)
					}
					return
				}
				mutated++
				if ok || len(got) != 1 {
					t.Errorf("%s: %q after %s: textOK %v, JSON reports %v", p.Env, bad, strings.Join(path, "."), ok, got)
				}
			})
		}
		// A map key.
		for name, ng := range p.NodeGroups {
			labels := ng.Labels
			ng.Labels = map[string]string{"team\x1b]0;": "x"}
			p.NodeGroups[name] = ng
			if textOK(reflect.ValueOf(p)) || len(reported(p)) != 1 {
				t.Errorf("%s: a bad label key: textOK %v, JSON reports %v", p.Env, textOK(reflect.ValueOf(p)), reported(p))
			}
			ng.Labels = labels
			p.NodeGroups[name] = ng
			break
		}
	}
	if mutated < 1000 || userData == 0 {
		t.Fatalf("%d strings mutated, %d of them userData: the profiles cover too little", mutated, userData)
	}
}

type stamp struct{ At string }

func (s stamp) MarshalJSON() ([]byte, error) { return []byte(`"at\n` + s.At + `"`), nil }

// TestTextOKLeavesMarshalersToJSON: a type that writes its own JSON may
// write what its fields do not hold; textOK does not vouch for it.
func TestTextOKLeavesMarshalersToJSON(t *testing.T) {
	if textOK(reflect.ValueOf(map[string]any{"s": stamp{At: "noon"}})) {
		t.Error("textOK vouches for a MarshalJSON")
	}
	if !textOK(reflect.ValueOf(map[string]any{"s": "noon", "userData": "a\nb"})) {
		t.Error("textOK refuses plain text")
	}
}

// eachString calls f with each settable string below v (struct fields by
// their JSON names, map values by key, list items), and a way to set it.
func eachString(v reflect.Value, path []string, f func(path []string, set func(string), old string)) {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			eachString(v.Elem(), path, f)
		}
	case reflect.String:
		if v.CanSet() {
			f(path, v.SetString, v.String())
		}
	case reflect.Struct:
		fields, err := jsonfields.Of(v.Type())
		if err != nil {
			return
		}
		for _, fl := range fields {
			eachString(v.Field(fl.Index), append(path[:len(path):len(path)], fl.Name), f)
		}
	case reflect.Map:
		for _, k := range v.MapKeys() {
			if k.Kind() != reflect.String {
				continue
			}
			val := v.MapIndex(k)
			p := append(path[:len(path):len(path)], k.String())
			if val.Kind() == reflect.String {
				f(p, func(s string) { v.SetMapIndex(k, reflect.ValueOf(s).Convert(val.Type())) }, val.String())
				continue
			}
			// A map's values cannot be set in place: a copy is, and put
			// back after each change.
			cp := reflect.New(val.Type()).Elem()
			cp.Set(val)
			eachString(cp, p, func(path []string, set func(string), old string) {
				f(path, func(s string) { set(s); v.SetMapIndex(k, cp) }, old)
			})
		}
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			eachString(v.Index(i), append(path[:len(path):len(path)], "["+string(rune('0'+i%10))+"]"), f)
		}
	}
}
