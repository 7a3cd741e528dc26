package main

import (
	"bytes"
	"io/fs"
	"os"
	"strings"
	"testing"
	"testing/fstest"
)

const reference = "../../reference"

// TestTableMatchesReference: internal/drift/data/table.tsv is what this
// command makes of the upstream files in reference/, byte for byte.
func TestTableMatchesReference(t *testing.T) {
	got, err := Table(os.DirFS(reference))
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile("../../internal/drift/data/table.tsv")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("internal/drift/data/table.tsv is not what reference/ gives: run go run ./hack/drifttable")
	}
}

// overlay is the reference tree with one file's text replaced.
type overlay struct {
	fs.FS
	name string
	text []byte
}

func (o overlay) Open(name string) (fs.File, error) {
	if name == o.name {
		return fstest.MapFS{name: {Data: o.text}}.Open(name)
	}
	return o.FS.Open(name)
}

func (o overlay) ReadDir(name string) ([]fs.DirEntry, error) { return fs.ReadDir(o.FS, name) }

// edit returns the table made from the reference with old replaced by new
// in one file, failing when the file does not hold old.
func edit(t *testing.T, file, old, new string) []byte {
	t.Helper()
	ref := os.DirFS(reference)
	text, err := fs.ReadFile(ref, file)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(text, []byte(old)) {
		t.Fatalf("%s does not hold %q", file, old)
	}
	table, err := Table(overlay{ref, file, bytes.Replace(text, []byte(old), []byte(new), 1)})
	if err != nil {
		t.Fatal(err)
	}
	return table
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
func TestTableFollowsATagChange(t *testing.T) {
	base, err := Table(os.DirFS(reference))
	if err != nil {
		t.Fatal(err)
	}
	table := edit(t, "karpenter-src/v1.15.2/provider/pkg/apis/v1/ec2nodeclass.go",
		"AMISelectorTerms []AMISelectorTerm `json:\"amiSelectorTerms\" hash:\"ignore\"`",
		"AMISelectorTerms []AMISelectorTerm `json:\"amiSelectorTerms\"`")
	got := strings.Join(changedRows(base, table), "\n")
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
	table = edit(t, "karpenter-src/v1.0.14/core/pkg/apis/v1/nodepool.go",
		"Taints []v1.Taint `json:\"taints,omitempty\"`", "Taints []v1.Taint `json:\"taints,omitempty\" hash:\"ignore\"`")
	if got := changedRows(base, table); len(got) != 1 || got[0] != "v1.0.14\tNodePool\tfield\tspec.template.spec.taints\tignored\t" {
		t.Errorf("rows changed by ignoring taints: %q", got)
	}

	// A hash version bump and a hash that no longer starts at the spec.
	table = edit(t, "karpenter-src/v1.14.3/core/pkg/apis/v1/nodepool.go", `NodePoolHashVersion = "v3"`, `NodePoolHashVersion = "v4"`)
	if got := changedRows(base, table); len(got) != 1 || got[0] != "v1.14.3\tNodePool\thash-version\t\tv4\t" {
		t.Errorf("rows changed by the version bump: %q", got)
	}
	ref := os.DirFS(reference)
	file := "karpenter-src/v1.14.3/core/pkg/apis/v1/nodepool.go"
	text, _ := fs.ReadFile(ref, file)
	_, err = Table(overlay{ref, file, bytes.Replace(text, []byte("hashstructure.Hash(in.Spec.Template,"), []byte("hashstructure.Hash(in.Spec,"), 1)})
	if err == nil || !strings.Contains(err.Error(), `v1.14.3 NodePool: (*NodePool).Hash hashes ["in.Spec"], not in.Spec.Template first`) {
		t.Errorf("a hash of the whole spec: %v", err)
	}
}
