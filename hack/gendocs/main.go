// Command gendocs writes a generated page of docs/ from its catalog: the
// rule catalog (docs/rules.md), the doctor's checks (docs/doctor.md) or
// the profile's schema (docs/profile.md).
//
//	go generate ./internal/lint ./internal/doctor ./internal/load
//
// make generate-check fails while a page is not what its catalog makes.
package main

import (
	"fmt"
	"os"

	"github.com/karpgen/karpgen/hack/internal/gosrc"
	"github.com/karpgen/karpgen/internal/doctor"
	"github.com/karpgen/karpgen/internal/lint"
)

// pages are the generated pages, by the catalog they come from.
var pages = map[string]struct {
	file string
	make func() []byte
}{
	"rules":   {"docs/rules.md", lint.Markdown},
	"doctor":  {"docs/doctor.md", doctor.Docs},
	"profile": {"docs/profile.md", profilePage},
}

func main() {
	page, ok := pages[arg()]
	if !ok {
		fmt.Fprintln(os.Stderr, "usage: go run ./hack/gendocs rules|doctor|profile")
		os.Exit(2)
	}
	gosrc.WriteFile("gendocs", page.file, page.make(), nil)
}

func arg() string {
	if len(os.Args) != 2 {
		return ""
	}
	return os.Args[1]
}
