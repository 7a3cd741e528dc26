package main

import (
	"fmt"
	"io"

	"github.com/karpgen/karpgen/internal/diag"
	"github.com/karpgen/karpgen/internal/pipeline"
)

// runBuild prints the Kubernetes objects of one environment as a single
// YAML stream: what Argo CD applies. Warnings are not printed; any error
// and an empty result fail.
func runBuild(args []string, stdout, stderr io.Writer) error {
	var dir string
	fs := newFlags("build", stderr)
	addProfilesFlag(fs, &dir)
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return usageErr("build: name exactly one environment")
	}
	res, err := pipeline.Run(pipeline.Options{Dir: dir, Envs: fs.Args()})
	if err != nil {
		return err
	}
	if diag.HasErrors(res.Findings) {
		return printFindings(stderr, res.Findings)
	}
	b := res.Bundles[0]
	var stream []byte
	for _, f := range []string{"ec2nodeclasses.yaml", "nodepools.yaml"} {
		if data, ok := b.Files[f]; ok {
			if len(stream) > 0 {
				stream = append(stream, "---\n"...)
			}
			stream = append(stream, data...)
		}
	}
	if len(stream) == 0 {
		return fmt.Errorf("build: environment %s has no Kubernetes objects", b.Env)
	}
	_, err = stdout.Write(stream)
	return err
}
