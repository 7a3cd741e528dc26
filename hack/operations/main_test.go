package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/karpgen/karpgen/hack/internal/gosrc"
	"github.com/karpgen/karpgen/internal/oracle"
)

// moduleHeader is how an operations file names a module zip it came from.
var moduleHeader = regexp.MustCompile(`from module (github\.com/aws/karpenter-provider-aws)@(v[0-9.]+) zip (h1:\S+);`)

// TestOperationsMatchSource: every operations file made from a module
// zip is what the extractor makes of that zip now, byte for byte, and
// the requests the whole tree shows only tests call are exactly the
// NotCalled table's (which stands in for the search in trees of selected
// files). `make test` fetches the zips from the module proxy.
func TestOperationsMatchSource(t *testing.T) {
	dir := oracle.Dir(t)
	files, err := filepath.Glob(filepath.Join(dir, "v*", "operations.txt"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no operations files in %s: %v", dir, err)
	}
	modules := 0
	for _, file := range files {
		want, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		m := moduleHeader.FindSubmatch(want)
		if m == nil {
			continue // from a tag's tree: hack/refresh-reference.sh remakes it from a clone
		}
		modules++
		release := string(m[2])
		t.Run(release, func(t *testing.T) {
			zip, err := gosrc.ModuleZip(string(m[1]), release)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := os.Stat(zip); err != nil {
				oracle.Missing(t, "the module zip of %s is not downloaded (make module-zips): %v", release, err)
			}
			src, closeSrc, err := gosrc.Open(zip)
			if err != nil {
				t.Fatal(err)
			}
			defer closeSrc()
			ops, unreached, err := Extract(src)
			if err != nil {
				t.Fatal(err)
			}
			label := strings.TrimSuffix(strings.TrimPrefix(string(moduleHeader.Find(want)), "from "), ";")
			if got := Format(ops, unreached, label); !bytes.Equal(got, want) {
				t.Errorf("%s differs from what the extractor finds in %s:\n%s", file, zip, got)
			}
			var found []string
			for _, o := range unreached {
				found = append(found, o.Action)
			}
			for _, o := range ops {
				if _, ok := NotCalled[o.Action]; ok {
					t.Errorf("%s: %s is called from %s, yet NotCalled lists it", release, o.Action, o.File)
				}
			}
			for a := range NotCalled {
				if !slices.Contains(found, a) {
					t.Errorf("%s: NotCalled lists %s, which the tree does not build in a function only tests call", release, a)
				}
			}
		})
	}
	if modules == 0 {
		t.Fatal("no operations file names a module zip")
	}
}

// TestExtractFindsRequestsAndPaginators: on a small tree of both SDKs,
// the extractor finds requests and paginators, maps the zonal shift
// service to its IAM prefix, skips tests and fakes, and leaves out a
// request only a test calls.
func TestExtractFindsRequestsAndPaginators(t *testing.T) {
	tree := t.TempDir()
	write := func(name, src string) {
		p := filepath.Join(tree, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("cmd/controller/main.go", "package main\nimport \"example/pkg/p\"\nfunc main() { p.Launch(); p.Zonal() }\n")
	write("pkg/p/p.go", `package p
import (
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	zs "github.com/aws/aws-sdk-go-v2/service/arczonalshift"
	v1sqs "github.com/aws/aws-sdk-go/service/sqs"
)
func Launch() { _ = &ec2.CreateFleetInput{}; _ = ec2.NewDescribeInstanceTypesPaginator(nil, nil) }
func Zonal() { _ = zs.GetManagedResourceInput{} }
func Send() { _ = &v1sqs.SendMessageInput{} }
`)
	write("pkg/p/p_test.go", "package p\nimport \"github.com/aws/aws-sdk-go-v2/service/ec2\"\nfunc x() { Send(); _ = &ec2.RebootInstancesInput{} }\n")
	write("pkg/fake/ec2.go", "package fake\nimport \"github.com/aws/aws-sdk-go-v2/service/ec2\"\nvar _ = ec2.TerminateInstancesInput{}\n")
	ops, unreached, err := Extract(os.DirFS(tree))
	if err != nil {
		t.Fatal(err)
	}
	got := string(Format(ops, unreached, "a test tree"))
	want := `# The AWS API operations the controller's code calls: SDK requests and paginators in pkg/,
# outside tests and fakes. Written by ` + "`go run ./hack/operations`" + ` from a test tree; do not edit.
# not called: sqs:SendMessage (pkg/p/p.go builds it in a function only tests call)
arc-zonal-shift:GetManagedResource pkg/p/p.go
ec2:CreateFleet pkg/p/p.go
ec2:DescribeInstanceTypes pkg/p/p.go
`
	if got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}
