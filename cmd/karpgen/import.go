package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/pflag"

	"github.com/karpgen/karpgen/internal/action"
	"github.com/karpgen/karpgen/internal/printer"
)

func importCommand(fs *pflag.FlagSet, stdout, stderr io.Writer) func(args []string) error {
	var im action.Import
	opts := &im.Options
	var format string
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
	option(&opts.NodeGroup, "NodeGroup", "node-group", "", "EKS managed node group the controller runs on (default: the one its --values pin it to, else the only one --state shows, else system)")
	fs.StringVar(&im.ValuesFile, "values", "", "Helm values of the karpenter release")
	fs.StringVar(&im.Out, "output-file", "", "file to write the profile to (default: standard output); never overwritten")
	addFormatFlag(fs, &format, "output format: text or json (what the import changed or dropped, on standard error)", "text", "json")
	fs.StringVar(&im.State, "state", "", "a capture of the cluster (karpgen doctor --capture-script): adopt the Pod Identity association and role it shows, and take its Kubernetes version")
	fs.BoolVar(&im.Draft, "draft", false, "write the profile even when vet refuses it, with vet's findings as comments at its end, and exit 1")
	return func(args []string) error {
		im.Files, im.Stdin = fs.Args(), os.Stdin
		res, err := im.Run()
		var need *action.NeedsError
		if errors.As(err, &need) {
			return usageErr("import: %s", needs(need, flagOf))
		}
		if err != nil {
			return err
		}
		findings, refused, draft, out, profile := res.Findings, res.Refused, im.Draft, im.Out, res.Profile
		if format == "json" {
			if err := printer.FindingsJSON(stderr, relative(findings)); err != nil {
				return err
			}
		} else {
			printer.Findings(stderr, relative(findings))
		}
		if refused && !draft {
			return &exitError{exitInvalid, errors.New("import: the imported profile would not vet (above); nothing was written: give the flags or fix the input the findings name, or write it as a draft with --draft")}
		}
		if out == "" {
			if _, err := stdout.Write(profile); err != nil {
				return err
			}
		} else {
			written, err := action.WriteProfile(out, profile)
			if err != nil {
				return err
			}
			fmt.Fprintf(stdout, "wrote %s\n", filepath.ToSlash(written))
		}
		if refused {
			return &exitError{exitFound, errors.New("import: wrote a draft: vet refuses it as it is (above, and at its end); fix what the findings name, then run karpgen vet")}
		}
		return nil
	}
}

// needs says which flags an import needs, with why.
func needs(e *action.NeedsError, flagOf map[string]string) string {
	var parts []string
	for _, n := range e.Needs {
		parts = append(parts, flagOf[n.Option]+" ("+n.Why+")")
	}
	return "give " + strings.Join(parts, ", ")
}

// importParseError: -o was import's output file before it meant the
// format, as in every other command; a file name given to it says so.
func importParseError(err error) error {
	var fe *formatError
	if errors.As(err, &fe) {
		return usageErr("import: -o is the output format, text or json, not %q; write the profile to a file with --output-file %s", fe.got, fe.got)
	}
	return err
}
