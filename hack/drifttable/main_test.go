package main

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/karpgen/karpgen/hack/internal/gosrc"
	"github.com/karpgen/karpgen/internal/oracle"
)

// inputs are the records, the committed table and the CRDs.
func inputs(t *testing.T) ([]record, []byte, fs.FS) {
	t.Helper()
	root := oracle.Root()
	source, err := os.ReadFile(filepath.Join(root, dataDir, "SOURCE"))
	if err != nil {
		t.Fatal(err)
	}
	records, err := readRecords(source)
	if err != nil {
		t.Fatal(err)
	}
	committed, err := os.ReadFile(filepath.Join(root, dataDir, "table.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	return records, committed, os.DirFS(filepath.Join(root, "reference", "karpenter"))
}

// fromProxy reads a tree from the module proxy only (never a checkout),
// counting the trees it read.
func fromProxy(read *int) reader {
	return func(u gosrc.Upstream, paths []string) (fs.FS, string, error) {
		u.Commit = ""
		src, how, err := u.Read(paths)
		if err == nil {
			*read++
		}
		return src, how, err
	}
}

// TestTableMatchesItsSources: every release and kind whose tree the module
// proxy serves (15 of 32 today) derives, byte for byte, the rows the
// committed table holds; the others are kept as committed.
func TestTableMatchesItsSources(t *testing.T) {
	records, committed, crds := inputs(t)
	served := 0
	for _, r := range records {
		for _, k := range kinds {
			if r.sides[k.side].Sum != "" {
				served++
			}
		}
	}
	read := 0
	got, kept, err := Table(records, committed, crds, fromProxy(&read))
	if err != nil {
		t.Fatal(err)
	}
	if read < served {
		oracle.Missing(t, "%d of the %d trees the proxy serves are not downloaded (make module-zips)", served-read, served)
	}
	if len(kept)+read != 2*len(records) {
		t.Errorf("%d kept and %d read of %d releases", len(kept), read, len(records))
	}
	if !bytes.Equal(got, committed) {
		t.Errorf("internal/facts/drift/data/table.tsv is not what its sources give: run go generate ./internal/facts/drift")
	}
}

// TestKeptRowsAreNamed: with no tree at hand every row is kept and
// named; a release the table has no rows of cannot be kept.
func TestKeptRowsAreNamed(t *testing.T) {
	records, committed, crds := inputs(t)
	none := func(u gosrc.Upstream, _ []string) (fs.FS, string, error) {
		return nil, "", fmt.Errorf("%s: %w", u, gosrc.ErrUnavailable)
	}
	got, kept, err := Table(records, committed, crds, none)
	if err != nil || !bytes.Equal(got, committed) {
		t.Fatalf("nothing at hand: %v, the table changed: %v", err, !bytes.Equal(got, committed))
	}
	if len(kept) != 2*len(records) || kept[0] != "v1.0.14 NodePool (core sigs.k8s.io/karpenter@v1.0.9)" {
		t.Errorf("kept: %d, first %q", len(kept), kept[0])
	}
	extra := record{release: "v1.99.0", sides: records[0].sides}
	_, _, err = Table(append(records, extra), committed, crds, none)
	if err == nil || !strings.Contains(err.Error(), "v1.99.0 NodePool: sigs.k8s.io/karpenter@v1.0.9: neither the module proxy nor a checkout has it, and the table has no rows of it") {
		t.Errorf("a release without rows: %v", err)
	}
}

// editing reads trees from the proxy, replacing old by new in one file of
// one release's side.
func editing(t *testing.T, release, side, file, old, new string, records []record) reader {
	target := records[0].sides[side]
	for _, r := range records {
		if r.release == release {
			target = r.sides[side]
		}
	}
	n := 0
	proxy := fromProxy(&n)
	return func(u gosrc.Upstream, paths []string) (fs.FS, string, error) {
		src, how, err := proxy(u, paths)
		if err != nil || u != target {
			return src, how, err
		}
		m := src.(fstest.MapFS)
		f, ok := m[file]
		if !ok {
			return src, how, nil
		}
		if !bytes.Contains(f.Data, []byte(old)) {
			t.Fatalf("%s of %s does not hold %q", file, u, old)
		}
		out := fstest.MapFS{}
		for p, f := range m {
			out[p] = f
		}
		out[file] = &fstest.MapFile{Data: bytes.Replace(f.Data, []byte(old), []byte(new), 1)}
		return out, how, nil
	}
}

// changedRows lists the rows of b that a does not have.
func changedRows(a, b []byte) []string {
	have := map[string]bool{}
	for _, l := range strings.Split(string(a), "\n") {
		have[l] = true
	}
	var rows []string
	for _, l := range strings.Split(string(b), "\n") {
		if !have[l] {
			rows = append(rows, l)
		}
	}
	return rows
}

// TestTableFollowsATagChange: when a field upstream stops being tagged
// hash:"ignore", the table says it enters the hash, for that release only.
// The trees are the module zips of 1.14.3 and 1.15.2, which the proxy
// serves.
func TestTableFollowsATagChange(t *testing.T) {
	records, committed, crds := inputs(t)
	for _, release := range []string{"v1.14.3", "v1.15.2"} {
		for _, r := range records {
			if r.release != release {
				continue
			}
			for side, u := range r.sides {
				if _, _, err := u.Read(nil); errors.Is(err, gosrc.ErrUnavailable) {
					oracle.Missing(t, "the %s tree of %s is not downloaded (make module-zips): %v", side, release, err)
				}
			}
		}
	}
	table := func(read reader) ([]byte, error) {
		got, _, err := Table(records, committed, crds, read)
		return got, err
	}
	must := func(read reader) []byte {
		t.Helper()
		got, err := table(read)
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	got := strings.Join(changedRows(committed, must(editing(t, "v1.15.2", "provider", "pkg/apis/v1/ec2nodeclass.go",
		"AMISelectorTerms []AMISelectorTerm `json:\"amiSelectorTerms\" hash:\"ignore\"`",
		"AMISelectorTerms []AMISelectorTerm `json:\"amiSelectorTerms\"`", records))), "\n")
	want := strings.Join([]string{
		"v1.15.2\tEC2NodeClass\tfield\tspec.amiSelectorTerms\thashed\t",
		"v1.15.2\tEC2NodeClass\tfield\tspec.amiSelectorTerms.alias\thashed\t",
		"v1.15.2\tEC2NodeClass\tfield\tspec.amiSelectorTerms.tags\thashed\t",
		"v1.15.2\tEC2NodeClass\tfield\tspec.amiSelectorTerms.id\thashed\t",
		"v1.15.2\tEC2NodeClass\tfield\tspec.amiSelectorTerms.name\thashed\t",
		"v1.15.2\tEC2NodeClass\tfield\tspec.amiSelectorTerms.owner\thashed\t",
		"v1.15.2\tEC2NodeClass\tfield\tspec.amiSelectorTerms.ssmParameter\thashed\t",
	}, "\n")
	if got != want {
		t.Errorf("rows changed by the edit:\n%s\nwant:\n%s", got, want)
	}

	// A NodePool field that starts being ignored.
	rows := changedRows(committed, must(editing(t, "v1.15.2", "core", "pkg/apis/v1/nodepool.go",
		"Taints []v1.Taint `json:\"taints,omitempty\"`", "Taints []v1.Taint `json:\"taints,omitempty\" hash:\"ignore\"`", records)))
	if len(rows) != 1 || rows[0] != "v1.15.2\tNodePool\tfield\tspec.template.spec.taints\tignored\t" {
		t.Errorf("rows changed by ignoring taints: %q", rows)
	}

	// A hash version bump and a hash that no longer starts at the spec.
	rows = changedRows(committed, must(editing(t, "v1.14.3", "core", "pkg/apis/v1/nodepool.go", `NodePoolHashVersion = "v3"`, `NodePoolHashVersion = "v4"`, records)))
	if len(rows) != 1 || rows[0] != "v1.14.3\tNodePool\thash-version\t\tv4\t" {
		t.Errorf("rows changed by the version bump: %q", rows)
	}
	_, err := table(editing(t, "v1.14.3", "core", "pkg/apis/v1/nodepool.go", "hashstructure.Hash(in.Spec.Template,", "hashstructure.Hash(in.Spec,", records))
	if err == nil || !strings.Contains(err.Error(), `v1.14.3 NodePool: (*NodePool).Hash hashes ["in.Spec"], not in.Spec.Template first`) {
		t.Errorf("a hash of the whole spec: %v", err)
	}
}
