// Command operations lists the AWS API operations a Karpenter release's
// controller calls, from its Go source: every SDK request it builds (a
// composite literal of a service's <Operation>Input type) and every
// paginator it makes (New<Operation>Paginator), in the files of pkg/
// outside tests and fakes, for AWS SDK for Go v1 and v2 alike. The IAM
// action is the service's prefix and the operation's name.
//
//	go generate ./hack/operations
//
// rewrites reference/karpenter/<release>/operations.txt for every release,
// from the source its header names: the module zip (the proxy serves six
// releases), or the tag's commit in a checkout under $KARPGEN_UPSTREAM; a
// release whose source is at hand neither way keeps its file, and the
// command says so. TestOperationsMatchSource holds the files to the zips.
package main

import (
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/karpgen/karpgen/hack/internal/gosrc"
	"github.com/karpgen/karpgen/internal/facts"
)

//go:generate go run .

func main() {
	if err := generate(); err != nil {
		fmt.Fprintln(os.Stderr, "operations:", err)
		os.Exit(1)
	}
}

// treeHeader is how an operations file names the tag's commit it came
// from.
var treeHeader = regexp.MustCompile(`from (tag (v[0-9.]+) commit ([0-9a-f]{40})[^;]*);`)

// generate rewrites every release's operations file from its source.
func generate() error {
	root, err := gosrc.Root()
	if err != nil {
		return err
	}
	files, err := filepath.Glob(filepath.Join(root, "reference", "karpenter", "v*", "operations.txt"))
	if err != nil {
		return err
	}
	slices.SortFunc(files, func(a, b string) int {
		va, _ := facts.ParseVersion(filepath.Base(filepath.Dir(a)))
		vb, _ := facts.ParseVersion(filepath.Base(filepath.Dir(b)))
		return va.Compare(vb)
	})
	var kept []string
	for _, file := range files {
		old, err := os.ReadFile(file)
		if err != nil {
			return err
		}
		u, ok := gosrc.Recorded(old)
		if m := treeHeader.FindSubmatch(old); !ok && m != nil {
			u = gosrc.Upstream{Module: "github.com/aws/karpenter-provider-aws", Version: string(m[2]), Repo: "aws/karpenter-provider-aws", Commit: string(m[3])}
		} else if !ok {
			return fmt.Errorf("%s names no source", file)
		}
		src, label, err := u.Read([]string{"pkg/"})
		if errors.Is(err, gosrc.ErrUnavailable) {
			kept = append(kept, u.Version)
			continue
		}
		if err != nil {
			return err
		}
		if !strings.HasPrefix(label, "module ") {
			label = fmt.Sprintf("tag %s commit %s", u.Version, u.Commit)
		}
		ops, unreached, err := Extract(src)
		if err != nil {
			return fmt.Errorf("%s: %w", u, err)
		}
		rel, _ := filepath.Rel(root, file)
		if err := gosrc.Output(root, filepath.ToSlash(rel), Format(ops, unreached, label)); err != nil {
			return err
		}
	}
	if len(kept) > 0 {
		fmt.Fprintf(os.Stderr, "operations: kept the files of %s: their source is not at hand (no module zip, no checkout under $%s)\n", strings.Join(kept, ", "), gosrc.UpstreamEnv)
	}
	return nil
}

// Operation is one AWS API operation and the first file that calls it.
type Operation struct {
	Action, File string
}

// iamPrefixes are the services whose IAM action prefix is not the SDK
// package's name.
var iamPrefixes = map[string]string{"arczonalshift": "arc-zonal-shift"}

// sdkService is the IAM prefix of the service of an AWS SDK import path,
// "" for another path.
func sdkService(importPath string) string {
	for _, prefix := range []string{"github.com/aws/aws-sdk-go-v2/service/", "github.com/aws/aws-sdk-go/service/"} {
		if svc, ok := strings.CutPrefix(importPath, prefix); ok && !strings.Contains(svc, "/") {
			if p, ok := iamPrefixes[svc]; ok {
				return p
			}
			return svc
		}
	}
	return ""
}

// skipped are the files that are not the controller: tests and fakes.
func skipped(p string) bool {
	if strings.HasSuffix(p, "_test.go") {
		return true
	}
	for _, dir := range strings.Split(path.Dir(p), "/") {
		if dir == "fake" || dir == "test" || dir == "testdata" {
			return true
		}
	}
	return false
}

// NotCalled are the requests upstream's pkg/ builds in functions only its
// tests call. In a whole source tree Extract finds them itself (and
// TestNotCalledIsWhatTheSourceSays holds the table to what it finds);
// in a tree of selected files it takes them from here.
var NotCalled = map[string]string{
	"sqs:SendMessage": "the SQS provider's SendMessage, which only upstream's test suites call",
}

// Extract finds the operations in pkg/ of a source tree, sorted by
// action. A request built only in a function nothing outside it names
// (the SQS provider's SendMessage) is not one the controller makes: it is
// left out, and listed in unreached.
func Extract(src fs.FS) (ops []Operation, unreached []Operation, err error) {
	var files []*parsed
	walk := func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".go") || skipped(p) {
			return err
		}
		f, err := src.Open(p)
		if err != nil {
			return err
		}
		data, err := io.ReadAll(f)
		f.Close()
		if err != nil {
			return err
		}
		file, err := parser.ParseFile(token.NewFileSet(), p, data, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		files = append(files, &parsed{path: p, file: file})
		return nil
	}
	// cmd/ holds the controller's main, which calls into pkg/. A tree of
	// selected files (only those that build requests) lacks it and most
	// callers: there the known table stands in for the search.
	_, statErr := fs.Stat(src, "cmd")
	whole := statErr == nil
	for _, root := range []string{"pkg", "cmd"} {
		if root == "cmd" && !whole {
			continue
		}
		if err := fs.WalkDir(src, root, walk); err != nil {
			return nil, nil, err
		}
	}
	// Every name a call or selector uses, where it is used.
	type use struct {
		file string
		pos  token.Pos
	}
	uses := map[string][]use{}
	for _, pf := range files {
		ast.Inspect(pf.file, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.SelectorExpr:
				uses[n.Sel.Name] = append(uses[n.Sel.Name], use{pf.path, n.Sel.Pos()})
			case *ast.CallExpr:
				if id, ok := n.Fun.(*ast.Ident); ok {
					uses[id.Name] = append(uses[id.Name], use{pf.path, id.Pos()})
				}
			}
			return true
		})
	}
	found, dead := map[string]string{}, map[string]string{}
	for _, pf := range files {
		for _, c := range callsOf(pf.file) {
			_, known := NotCalled[c.action]
			called := c.fn == nil || !whole && !known
			if c.fn != nil && whole {
				for _, u := range uses[c.fn.Name.Name] {
					if u.file != pf.path || u.pos < c.fn.Pos() || u.pos > c.fn.End() {
						called = true
						break
					}
				}
			}
			into := found
			if !called {
				into = dead
			}
			if _, ok := into[c.action]; !ok {
				into[c.action] = pf.path
			}
		}
	}
	for a := range found {
		delete(dead, a)
	}
	return sortedOps(found), sortedOps(dead), nil
}

type parsed struct {
	path string
	file *ast.File
}

func sortedOps(m map[string]string) []Operation {
	var out []Operation
	for _, a := range slices.Sorted(maps.Keys(m)) {
		out = append(out, Operation{a, m[a]})
	}
	return out
}

// call is an operation a file builds, and the function that builds it
// (nil at package level).
type call struct {
	action string
	fn     *ast.FuncDecl
}

// callsOf lists the operations a file's functions build.
func callsOf(file *ast.File) []call {
	var out []call
	for _, decl := range file.Decls {
		fn, _ := decl.(*ast.FuncDecl)
		for _, a := range operationsOf(file, decl) {
			out = append(out, call{a, fn})
		}
	}
	return out
}

// operationsOf lists the actions the requests and paginators of one
// declaration of a file name.
func operationsOf(file *ast.File, decl ast.Decl) []string {
	services := map[string]string{} // local name -> service
	for _, imp := range file.Imports {
		p, _ := strconv.Unquote(imp.Path.Value)
		svc := sdkService(p)
		if svc == "" {
			continue
		}
		name := path.Base(p) // the package's name
		if imp.Name != nil {
			name = imp.Name.Name
		}
		services[name] = svc
	}
	var out []string
	ast.Inspect(decl, func(n ast.Node) bool {
		var sel *ast.SelectorExpr
		var suffix, prefix string
		switch n := n.(type) {
		case *ast.CompositeLit:
			sel, _ = n.Type.(*ast.SelectorExpr)
			suffix = "Input"
		case *ast.CallExpr:
			sel, _ = n.Fun.(*ast.SelectorExpr)
			prefix, suffix = "New", "Paginator"
		}
		if sel == nil {
			return true
		}
		pkg, ok := sel.X.(*ast.Ident)
		if !ok || services[pkg.Name] == "" {
			return true
		}
		op, ok := strings.CutSuffix(sel.Sel.Name, suffix)
		if ok && prefix != "" {
			op, ok = strings.CutPrefix(op, prefix)
		}
		if ok && op != "" {
			out = append(out, services[pkg.Name]+":"+op)
		}
		return true
	})
	return out
}

// Format writes the operations file: a header, the requests built where
// nothing calls them, then one action and the file that first calls it
// per line.
func Format(ops, unreached []Operation, label string) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "# The AWS API operations the controller's code calls: SDK requests and paginators in pkg/,\n")
	fmt.Fprintf(&b, "# outside tests and fakes. Written by `go run ./hack/operations` from %s; do not edit.\n", label)
	for _, o := range unreached {
		fmt.Fprintf(&b, "# not called: %s (%s builds it in a function only tests call)\n", o.Action, o.File)
	}
	for _, o := range ops {
		fmt.Fprintf(&b, "%s %s\n", o.Action, o.File)
	}
	return []byte(b.String())
}
