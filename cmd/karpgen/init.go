package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/karpgen/karpgen/internal/diag"
	"github.com/karpgen/karpgen/internal/facts"
	"github.com/karpgen/karpgen/internal/lint"
	"github.com/karpgen/karpgen/internal/load"
	"github.com/karpgen/karpgen/internal/output"
	"github.com/karpgen/karpgen/internal/templates"
	"github.com/karpgen/karpgen/internal/util/safefs"
)

// accountRE is an AWS account ID.
var accountRE = regexp.MustCompile(`^[0-9]{12}$`)

func runInit(args []string, stdout, stderr io.Writer) error {
	newest := facts.Newest()
	p := templates.Params{
		KarpenterVersion:  strings.TrimPrefix(newest.Reference, "v"),
		KubernetesVersion: facts.ConfirmedKubernetes(),
	}
	var name, dir string
	fs := newFlags("init", stdout, stderr)
	fs.StringVar(&name, "template", "workload-separation", "template: "+strings.Join(templates.Names(), ", "))
	fs.StringVar(&dir, "dir", "profiles", "folder to write the profiles into")
	fs.StringVar(&p.Name, "name", "my-cluster", "cluster name prefix: <name>-dev, <name>-staging, <name>-prod")
	fs.StringVar(&p.Region, "region", "us-east-1", "AWS region of the clusters")
	fs.StringVar(&p.Account, "account", "123456789012", "AWS account ID")
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageErr("init: unexpected arguments %v", fs.Args())
	}
	switch {
	case !accountRE.MatchString(p.Account):
		return usageErr("init: --account %q is not an AWS account ID (12 digits)", p.Account)
	case facts.Regions[p.Region] == "":
		hint := ""
		if s := diag.Closest(p.Region, slices.Sorted(maps.Keys(facts.Regions))); s != "" {
			hint = fmt.Sprintf("; did you mean %q?", s)
		}
		return usageErr("init: --region %q is not an AWS region karpgen knows%s", p.Region, hint)
	case !lint.ValidClusterName(p.Name + "-staging"):
		return usageErr("init: --name %q does not make valid EKS cluster names (%s-staging): use letters, digits, '-' and '_', starting with a letter or digit", p.Name, p.Name)
	}
	files, err := templates.Render(name, p)
	if err != nil {
		return usageErr("init: %v", err)
	}
	if err := notDefinedYet(dir, files); err != nil {
		return err
	}
	written, err := output.WriteNew(dir, files)
	for _, path := range written {
		fmt.Fprintf(stdout, "wrote %s\n", filepath.ToSlash(path))
	}
	if err != nil {
		return fmt.Errorf("init: %w", err)
	}
	fmt.Fprintf(stdout, "next: edit the profiles, then run karpgen vet and karpgen render\n")
	return nil
}

// notDefinedYet refuses templates that define an environment the
// profiles folder defines already: the package would hold two
// definitions of it, and vet would fail on a conflict of the two.
func notDefinedYet(dir string, files map[string][]byte) error {
	have := map[string]diag.Pos{}
	entries, err := os.ReadDir(dir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("init: %w", err)
	}
	for _, e := range entries {
		if _, ours := files[e.Name()]; ours || !e.Type().IsRegular() || filepath.Ext(e.Name()) != ".cue" {
			continue // a file of the template's own name is refused whole by WriteNew
		}
		path := filepath.Join(dir, e.Name())
		src, err := safefs.ReadFile(path, 64<<20)
		if err != nil {
			return fmt.Errorf("init: %w", err)
		}
		envs, err := load.DefinedEnvironments(filepath.ToSlash(path), src)
		if err != nil {
			continue // vet reports a file that does not parse
		}
		for name, pos := range envs {
			if _, seen := have[name]; !seen {
				have[name] = pos
			}
		}
	}
	for _, file := range slices.Sorted(maps.Keys(files)) {
		envs, err := load.DefinedEnvironments(file, files[file])
		if err != nil {
			return err
		}
		for _, name := range slices.Sorted(maps.Keys(envs)) {
			if pos, taken := have[name]; taken {
				return &exitError{exitFailure, fmt.Errorf("init: environment %s is defined already, at %s; the template would define it again: nothing was written (init is for a folder without these environments; add one by hand, or --dir another folder)", name, pos)}
			}
		}
	}
	return nil
}
