package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing/fstest"

	"github.com/karpgen/karpgen/internal/diag"
	"github.com/karpgen/karpgen/internal/importer"
	"github.com/karpgen/karpgen/internal/lint"
	"github.com/karpgen/karpgen/internal/load"
	"github.com/karpgen/karpgen/internal/output"
	"github.com/karpgen/karpgen/internal/pipeline"
	"github.com/karpgen/karpgen/internal/printer"
	"github.com/karpgen/karpgen/internal/util/boundyaml"
	"github.com/karpgen/karpgen/internal/util/escape"
)

func runImport(args []string, stdout, stderr io.Writer) error {
	var opts importer.Options
	var valuesFile, out, format string
	var draft bool
	fs := newFlags("import", stdout, stderr)
	// flagOf names the flag of each option, for an import that needs one.
	flagOf := map[string]string{}
	option := func(p *string, field, name, value, usage string) {
		fs.StringVar(p, name, value, usage)
		flagOf[field] = "--" + name
	}
	option(&opts.Env, "Env", "env", "imported", "name of the environment to write")
	option(&opts.Cluster, "Cluster", "cluster", "", "EKS cluster name (default: settings.clusterName of --values)")
	option(&opts.Region, "Region", "region", "", "AWS region (default: the region of the pools' zones)")
	option(&opts.Account, "Account", "account", "", "AWS account ID (default: from the IRSA role in --values)")
	option(&opts.KarpenterVersion, "KarpenterVersion", "karpenter-version", "", "Karpenter version to move to (default: the newest karpgen knows)")
	option(&opts.KubernetesVersion, "KubernetesVersion", "kubernetes-version", "", "Kubernetes version of the cluster (default: the newest that version supports)")
	option(&opts.Namespace, "Namespace", "namespace", "kube-system", "namespace Karpenter is installed in")
	option(&opts.OIDCIssuer, "OIDCIssuer", "oidc-issuer", "", "the cluster's OIDC issuer URL, for a controller that uses IRSA")
	option(&opts.NodeGroup, "NodeGroup", "node-group", "system", "EKS managed node group the controller runs on")
	fs.StringVar(&valuesFile, "values", "", "Helm values of the karpenter release")
	fs.StringVar(&out, "output-file", "", "file to write the profile to (default: standard output); never overwritten")
	addFormatFlag(fs, &format, "output format: text or json (what the import changed or dropped, on standard error)", "text", "json")
	fs.BoolVar(&draft, "draft", false, "write the profile even when vet refuses it, with vet's findings as comments at its end, and exit 1")
	if err := parse(fs, args); err != nil {
		// -o was import's output file before it meant the format, as in
		// every other command.
		var fe *formatError
		if errors.As(err, &fe) {
			return usageErr("import: -o is the output format, text or json, not %q; write the profile to a file with --output-file %s", fe.got, fe.got)
		}
		return err
	}
	if fs.NArg() == 0 {
		return usageErr("import: name the manifest files to import (- reads standard input)")
	}
	if msg := lint.CheckEnvName(opts.Env); msg != "" {
		return usageErr("import: --env: %s", msg)
	}
	var inputs []importer.Input
	for _, f := range fs.Args() {
		var data []byte
		var err error
		if f == "-" {
			data, err = io.ReadAll(io.LimitReader(os.Stdin, boundyaml.MaxBytes+1))
			f = "<stdin>"
		} else {
			data, err = readBounded(f)
		}
		if err != nil {
			return fmt.Errorf("import: %w", err)
		}
		inputs = append(inputs, importer.Input{Name: f, Data: data})
	}
	var values *importer.Input
	if valuesFile != "" {
		data, err := readBounded(valuesFile)
		if err != nil {
			return fmt.Errorf("import: %w", err)
		}
		values = &importer.Input{Name: valuesFile, Data: data}
	}
	res, err := importer.Import(inputs, values, opts)
	var need *importer.NeedError
	if errors.As(err, &need) {
		return usageErr("import: %s", needs(need, flagOf))
	}
	if err != nil {
		return fmt.Errorf("import: %w", err)
	}
	// The loop is closed before anything is written: the profile must
	// vet as it is, or import fails naming what vet refuses.
	name := "imported.cue"
	if out != "" {
		name = filepath.Base(out)
	}
	checked, err := pipeline.Check(pipeline.Options{Folder: &load.Folder{FS: fstest.MapFS{name: {Data: res.CUE}}, Path: filepath.Dir(orDefault(out, name))}})
	if err != nil {
		return fmt.Errorf("import: checking the profile: %w", err)
	}
	refused := diag.HasErrors(checked.Findings)
	findings := res.Findings
	if refused {
		// Each at the input line its field came from, the profile's
		// line second.
		located := make([]diag.Finding, len(checked.Findings))
		for i, f := range checked.Findings {
			located[i] = res.Locate(f)
			if !draft && out != "" {
				located[i] = unwritten(located[i], filepath.ToSlash(out))
			}
		}
		findings = append(findings, diag.Sort(located)...)
	}
	if format == "json" {
		if err := printer.FindingsJSON(stderr, relative(findings)); err != nil {
			return err
		}
	} else {
		printer.Findings(stderr, relative(findings))
	}
	profile := res.CUE
	switch {
	case refused && !draft:
		return &exitError{exitInvalid, errors.New("import: the imported profile would not vet (above); nothing was written: give the flags or fix the input the findings name, or write it as a draft with --draft")}
	case refused:
		// At the end, so that the findings' lines are the file's.
		profile = append(slices.Clone(profile), draftNote(checked.Findings)...)
	}
	if out == "" {
		if _, err := stdout.Write(profile); err != nil {
			return err
		}
	} else {
		written, err := output.WriteNew(filepath.Dir(out), map[string][]byte{filepath.Base(out): profile})
		if err != nil {
			return fmt.Errorf("import: %w", err)
		}
		fmt.Fprintf(stdout, "wrote %s\n", filepath.ToSlash(written[0]))
	}
	if refused {
		return &exitError{exitFound, errors.New("import: wrote a draft: vet refuses it as it is (above, and at its end); fix what the findings name, then run karpgen vet")}
	}
	return nil
}

// unwritten keeps a finding from citing a line of the profile import
// did not write: such a position leaves its "see" lines, and a finding
// at one says the line in its message instead.
func unwritten(f diag.Finding, profile string) diag.Finding {
	f.Also = slices.DeleteFunc(slices.Clone(f.Also), func(p diag.Pos) bool { return filepath.ToSlash(p.File) == profile })
	if filepath.ToSlash(f.Pos.File) == profile {
		f.Message += fmt.Sprintf(" (line %d of the profile, which was not written)", f.Pos.Line)
		f.Pos = diag.Pos{}
	}
	return f
}

// draftNote is what vet refuses of a draft profile, as comments: one line
// each, whatever the finding's text holds.
func draftNote(findings []diag.Finding) []byte {
	var b strings.Builder
	b.WriteString("\n// Draft: karpgen vet refuses this profile as it is. Fix what these name, then remove this note:\n")
	for _, f := range findings {
		if f.Severity != diag.Error {
			continue
		}
		line := fmt.Sprintf("%s: %s [%s]", f.Pos, f.Message, f.Rule)
		if f.Hint != "" {
			line += " (" + f.Hint + ")"
		}
		b.WriteString("//   - " + escape.Comment(line) + "\n")
	}
	return []byte(b.String())
}

// readBounded reads a file to import, at most one byte past the size an
// import takes (the importer refuses what is larger).
func readBounded(name string) ([]byte, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, boundyaml.MaxBytes+1))
}

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}

// needs says which flags an import needs, with why.
func needs(e *importer.NeedError, flagOf map[string]string) string {
	var parts []string
	for _, n := range e.Needs {
		parts = append(parts, flagOf[n.Option]+" ("+n.Why+")")
	}
	return "give " + strings.Join(parts, ", ")
}
