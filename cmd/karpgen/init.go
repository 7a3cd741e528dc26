package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/karpgen/karpgen/generators/facts"
	"github.com/karpgen/karpgen/internal/templates"
)

func runInit(args []string, stdout, stderr io.Writer) error {
	newest := facts.Newest()
	p := templates.Params{
		KarpenterVersion:  strings.TrimPrefix(newest.Reference, "v"),
		KubernetesVersion: newest.Kubernetes[1],
	}
	var name, dir string
	fs := newFlags("init", stderr)
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
	files, err := templates.Render(name, p)
	if err != nil {
		return usageErr("init: %v", err)
	}
	names := make([]string, 0, len(files))
	for f := range files {
		names = append(names, f)
	}
	sort.Strings(names)
	for _, f := range names {
		if _, err := os.Lstat(filepath.Join(dir, f)); err == nil {
			return fmt.Errorf("init: %s exists; karpgen init never overwrites files", filepath.Join(dir, f))
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, f := range names {
		path := filepath.Join(dir, f)
		if err := os.WriteFile(path, files[f], 0o644); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "wrote %s\n", filepath.ToSlash(path))
	}
	fmt.Fprintf(stdout, "next: edit the profiles, then run karpgen vet and karpgen render\n")
	return nil
}
