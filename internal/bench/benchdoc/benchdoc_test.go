package benchdoc

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

const root = "../../.."

// TestDocsFollowBenchResults: every figure of README.md and docs/*.md's
// generated regions is what docs/bench.json (make bench) says, and
// README.md and docs/argocd.md quote none elsewhere. KARPGEN_UPDATE=1
// rewrites the regions (make bench does).
func TestDocsFollowBenchResults(t *testing.T) {
	r, err := Load(filepath.Join(root, "docs", "bench.json"))
	if err != nil {
		t.Fatal(err)
	}
	docs, _ := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	docs = append(docs, filepath.Join(root, "README.md"))
	var all []string
	for _, path := range docs {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		out, names, err := Apply(string(data), r)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		all = append(all, names...)
		if out != string(data) {
			if os.Getenv("KARPGEN_UPDATE") == "1" {
				os.WriteFile(path, []byte(out), 0o644)
			} else {
				t.Errorf("%s: its figures are not docs/bench.json's (make bench, or KARPGEN_UPDATE=1 go test ./internal/bench/benchdoc, rewrites them)", path)
			}
		}
		if base := filepath.Base(path); base == "README.md" || base == "argocd.md" {
			if f := Outside(out); len(f) > 0 {
				t.Errorf("%s quotes %v outside a generated region", path, f)
			}
		}
	}
	for _, want := range []string{"table", "summary", "build"} {
		if !slices.Contains(all, want) {
			t.Errorf("no doc holds the region %q", want)
		}
	}
}

// TestAHandEditFails: a figure changed by hand in a region is caught.
func TestAHandEditFails(t *testing.T) {
	r := &Results{Date: "d", CPUs: 2, Go: "go", Rounds: 1, Fleet: 10, Rows: []Row{{ID: "render-one", Name: "render", WallMS: 11, RSSKiB: 2048}}}
	doc := "x\n<!-- bench:summary -->\n" + r.Regions()["summary"] + "<!-- /bench -->\n"
	if out, _, _ := Apply(doc, r); out != doc {
		t.Fatalf("a generated doc changes:\n%s", out)
	}
	edited := "x\n<!-- bench:summary -->\nA render of one environment takes 9.0 ms.\n<!-- /bench -->\n"
	if out, _, _ := Apply(edited, r); out == edited {
		t.Error("a hand-edited figure passes")
	}
	if f := Outside("about 14 ms and 2.6 s in 171 MiB"); len(f) != 3 {
		t.Errorf("figures outside: %v", f)
	}
}

// TestPerDoubling: a doubling is the plain ratio; 2.5 times the fleet
// counts as 1.32 doublings.
func TestPerDoubling(t *testing.T) {
	for _, c := range []struct {
		t1, t2 float64
		n1, n2 int
		want   string
	}{
		{1000, 2200, 1000, 2000, "2.20"},
		{10480, 29420, 4000, 10000, "2.18"},
		{100, 400, 1000, 4000, "2.00"},
	} {
		if got := fmt.Sprintf("%.2f", PerDoubling(c.t1, c.t2, c.n1, c.n2)); got != c.want {
			t.Errorf("PerDoubling(%v, %v, %d, %d) = %s, want %s", c.t1, c.t2, c.n1, c.n2, got, c.want)
		}
	}
}
