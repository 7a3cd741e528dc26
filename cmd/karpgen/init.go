package main

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/spf13/pflag"

	"github.com/karpgen/karpgen/internal/action"
)

func initCommand(fs *pflag.FlagSet, stdout, stderr io.Writer) func(args []string) error {
	in := action.NewInit()
	p := &in.Params
	fs.StringVar(&in.Template, "template", "workload-separation", "template: "+strings.Join(action.TemplateNames(), ", "))
	fs.StringVar(&in.Dir, "dir", "profiles", "folder to write the profiles into")
	fs.StringVar(&p.Name, "name", "my-cluster", "cluster name prefix: <name>-dev, <name>-staging, <name>-prod")
	fs.StringVar(&p.Region, "region", "us-east-1", "AWS region of the clusters")
	fs.StringVar(&p.Account, "account", "123456789012", "AWS account ID")
	return func(args []string) error {
		if fs.NArg() > 0 {
			return usageErr("init: unexpected arguments %v", fs.Args())
		}
		written, err := in.Run()
		for _, path := range written {
			fmt.Fprintf(stdout, "wrote %s\n", filepath.ToSlash(path))
		}
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "next: edit the profiles, then run karpgen vet and karpgen render\n")
		return nil
	}
}
