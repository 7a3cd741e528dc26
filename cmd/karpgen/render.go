package main

import (
	"io"

	"github.com/karpgen/karpgen/internal/output"
	"github.com/karpgen/karpgen/internal/pipeline"
)

func runRender(args []string, stdout, stderr io.Writer) error {
	var dir, out string
	var check bool
	fs := newFlags("render", stderr)
	addProfilesFlag(fs, &dir)
	fs.StringVar(&out, flagOut, "out", "folder of the rendered bundles, one folder per environment")
	fs.BoolVar(&check, flagCheck, false, "render in memory, print a diff against --out and exit 1 when anything differs; write nothing")
	if err := parse(fs, args); err != nil {
		return err
	}
	res, err := pipeline.Check(pipeline.Options{Dir: dir, Envs: fs.Args()})
	if err != nil {
		return err
	}
	if err := printFindings(stderr, res.Findings); err != nil {
		return err
	}
	if check {
		return res.Render(&output.Check{Dir: out, Stdout: stdout})
	}
	// Every profile is valid here: what remains can only fail on the file
	// system, and each environment's folder is replaced atomically.
	disk, err := output.NewDisk(out, res.Names, stdout, stderr)
	if err != nil {
		return err
	}
	if err := res.Render(disk); err != nil {
		disk.Report()
		return err
	}
	return nil
}
