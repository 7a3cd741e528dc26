package main

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/karpgen/karpgen/generators/facts"
	"github.com/karpgen/karpgen/internal/output"
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
