package generators

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/karpgen/karpgen/internal/facts"
	"github.com/karpgen/karpgen/internal/model"
	"github.com/karpgen/karpgen/internal/profile"
)

// sameAsEncodingJSON asserts that encodeJSON writes v as encoding/json
// does.
func sameAsEncodingJSON(t *testing.T, name string, v any) {
	t.Helper()
	if got, want := encodeJSON(v), stdJSON(v); !bytes.Equal(got, want) {
		t.Errorf("%s: encodeJSON wrote\n%s\nencoding/json writes\n%s", name, got, want)
	}
}

// TestJSONMatchesEncodingJSON reads back every JSON file of the bundles
// of each minor and auth mode and of the repository's own out/, and
// writes each again: the encoder, encoding/json and the file agree byte
// for byte. (The bundles' golden files hold the typed values the
// generators pass, such as maps of strings.)
func TestJSONMatchesEncodingJSON(t *testing.T) {
	files := map[string][]byte{}
	for i := range facts.Minors {
		m := &facts.Minors[i]
		for _, auth := range []string{profile.AuthIRSA, profile.AuthPodIdentity} {
			b, err := Render(model.Resolve(generatorProfile(m, auth)))
			if err != nil {
				t.Fatal(err)
			}
			for p, data := range b.Files {
				if strings.HasSuffix(p, ".json") {
					files[m.Minor+"/"+auth+"/"+p] = data
				}
			}
		}
	}
	out, _ := filepath.Glob(filepath.Join("..", "out", "*", "*", "*.json"))
	for _, p := range out {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		files[p] = data
	}
	if len(files) < 300 {
		t.Fatalf("only %d JSON files", len(files))
	}
	for name, data := range files {
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.UseNumber()
		var v any
		if err := dec.Decode(&v); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		v = integers(v)
		if _, ok := appendJSON(nil, v, 0); !ok {
			t.Errorf("%s: the encoder leaves it to encoding/json", name)
		}
		if got := encodeJSON(v); !bytes.Equal(got, data) {
			t.Errorf("%s: written again as\n%s\nnot as generated:\n%s", name, got, data)
		}
		sameAsEncodingJSON(t, name, v)
	}
}

// integers makes the whole numbers of a decoded document int64, as the
// generators write them.
func integers(v any) any {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			v[k] = integers(x)
		}
	case []any:
		for i, x := range v {
			v[i] = integers(x)
		}
	case json.Number:
		if n, err := v.Int64(); err == nil {
			return n
		}
	}
	return v
}

// TestJSONLeavesOtherValuesToEncodingJSON: a float, a struct, a type
// of its own JSON, anywhere in a document, sends the document whole to
// encoding/json.
func TestJSONLeavesOtherValuesToEncodingJSON(t *testing.T) {
	for name, v := range map[string]any{
		"float":     obj{"a": []any{1, 2.5}},
		"struct":    obj{"a": struct{ B int }{1}},
		"marshaler": []any{json.RawMessage(`{"z":1,"a":2}`)},
		"number":    obj{"n": json.Number("1e3")},
		"typed map": obj{"m": map[string]int{"b": 2, "a": 1}},
	} {
		if _, ok := appendJSON(nil, v, 0); ok {
			t.Errorf("%s: written by the encoder", name)
		}
		sameAsEncodingJSON(t, name, v)
	}
}

// FuzzJSONMatchesEncodingJSON: any string, as a key, a value and a list
// item, nested, with empty and nil collections beside it, is written as
// encoding/json writes it.
func FuzzJSONMatchesEncodingJSON(f *testing.F) {
	for _, s := range []string{"", "plain", `q"uote\back`, "<html>&amp;", "\x00\x01\x1f\x7f", "\b\f\n\r\t",
		"caf\u00e9 \u2028\u2029 \U0001F600", "bad\xffutf8\xc3", "${var}%{x}", "line\u0085next"} {
		f.Add(s, 7, true)
	}
	f.Fuzz(func(t *testing.T, s string, n int, b bool) {
		v := obj{
			s:       []any{s, n, b, nil, obj{}, []any{}},
			"typed": map[string]string{s: s, "": ""},
			"objs":  map[string]obj{s: {s: int64(n)}},
			"list":  []string{s, ""},
			"nils":  obj{"m": obj(nil), "l": []any(nil), "s": []string(nil), "t": map[string]string(nil)},
		}
		sameAsEncodingJSON(t, "fuzzed", v)
	})
}
