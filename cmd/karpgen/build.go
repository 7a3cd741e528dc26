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
	"github.com/karpgen/karpgen/internal/util/escape"
)

// buildCommand prints the Kubernetes objects of one environment as a single
// YAML stream: what Argo CD applies. It is the bundle's kustomization,
// with the overlay in <profiles>/overlays/<env>/ on top when there is one.
// Only that environment is evaluated. The overlay is read from the
// profiles folder only and may name nothing remote; the result is checked
// again (lint.CheckBuilt) before anything is printed. Warnings are not
// printed; any error and an empty result fail with nothing on stdout.
func buildCommand(fs *pflag.FlagSet, stdout, stderr io.Writer) func(args []string) error {
	b := action.Build{Stdout: stdout}
	var fromArgoCD, discover bool
	addProfilesFlag(fs, &b.Dir)
	fs.StringSliceVar(&b.AllowKinds, "allow-kinds", nil, "kinds (Kind or group/Kind) an overlay may add, remove or rename objects of; by default it may only patch, label and annotate karpgen's objects")
	fs.BoolVar(&fromArgoCD, "from-argocd", false, "the environment is the Application's plugin env KARPGEN_ENV, else its env parameter, else its name (the plugin's generate command)")
	fs.BoolVar(&discover, "discover", false, "print the first profile of the profiles folder, or nothing, and build nothing (the plugin's discover command)")
	addEvalFlags(fs, &b.Eval)
	return func(args []string) error {
		if discover {
			if fs.NArg() != 0 || fromArgoCD {
				return usageErr("build: --discover takes no environment")
			}
			return discoverProfiles(b.Dir, stdout)
		}
		envs := fs.Args()
		if fromArgoCD {
			if fs.NArg() != 0 {
				return usageErr("build: --from-argocd names the environment itself")
			}
			env, err := argoCDEnv()
			if err != nil {
				return err
			}
			envs = []string{env}
		}
		if len(envs) != 1 {
			return usageErr("build: name exactly one environment")
		}
		b.Env = envs[0]
		return printInvalid(stderr, b.Run())
	}
}

// The variables Argo CD's cmp-server gives the plugin's commands: the
// Application's plugin env (prefixed ARGOCD_ENV_), its parameters (PARAM_)
// and its name.
const (
	argoCDPluginEnv = "ARGOCD_ENV_KARPGEN_ENV"
	argoCDParamEnv  = "PARAM_ENV"
	argoCDAppName   = "ARGOCD_APP_NAME"
)

// argoCDEnv is the environment an Argo CD Application asks the plugin for:
// its plugin env KARPGEN_ENV, else its env parameter, else its name. The
// value is only ever a name: it reaches no shell and no flag.
func argoCDEnv() (string, error) {
	for _, v := range []string{argoCDPluginEnv, argoCDParamEnv, argoCDAppName} {
		if s := os.Getenv(v); s != "" {
			return s, nil
		}
	}
	return "", usageErr("build: --from-argocd: none of %s, %s and %s is set: run it as the Argo CD plugin, or name the environment", argoCDPluginEnv, argoCDParamEnv, argoCDAppName)
}

// discoverProfiles prints the first profile (*.cue or *.jsonnet, by name)
// directly in the profiles folder, or nothing: Argo CD takes any output
// as "this repository is the plugin's".
func discoverProfiles(dir string, stdout io.Writer) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil // no profiles folder: not the plugin's
	}
	for _, e := range entries {
		if e.Type().IsRegular() && (strings.HasSuffix(e.Name(), ".cue") || strings.HasSuffix(e.Name(), ".jsonnet")) {
			// A file name is the repository's: printed inert.
			_, err := fmt.Fprintln(stdout, escape.Terminal(filepath.Join(dir, e.Name())))
			return err
		}
	}
	return nil
}

// buildParseError: Argo CD applies what build prints, so its help is
// never a success.
func buildParseError(err error) error {
	if errors.Is(err, pflag.ErrHelp) {
		return usageErr("build: prints the objects of one environment; nothing else")
	}
	return err
}
