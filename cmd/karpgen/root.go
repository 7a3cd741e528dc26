package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"github.com/karpgen/karpgen/internal/action"
	"github.com/karpgen/karpgen/internal/diag"
	"github.com/karpgen/karpgen/internal/printer"
	"github.com/karpgen/karpgen/internal/util/escape"
)

// Exit codes of the CLI contract. A difference found (render --check,
// diff) is never told by the code a failure gets: a workflow that treats
// 1 as "something changes" must not go green when the command failed.
const (
	exitOK      = 0
	exitFound   = 1
	exitUsage   = 2
	exitInvalid = 3
	exitFailure = 4
)

// exitError carries an exit code up to run.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

func usageErr(format string, args ...any) error {
	return &exitError{exitUsage, fmt.Errorf(format, args...)}
}

// errInvalid is returned once the findings that made a profile invalid
// have been printed.
var errInvalid = &exitError{exitInvalid, errors.New("invalid profile")}

// usage is the root help: every command's synopsis, from its own help.
func usage() string {
	var b strings.Builder
	b.WriteString("karpgen renders Karpenter bundles from CUE cluster profiles.\n\nUsage:\n")
	for _, line := range strings.SplitAfter(strings.TrimSuffix(synopsis(), "\n"), "\n") {
		b.WriteString("  " + line)
	}
	b.WriteString("\n\nEvery command explains itself with --help.\nExit codes: 0 ok, 1 a difference found (render --check, diff), 2 usage error, 3 invalid profile (doctor: a fault found), 4 failure (I/O, git, timeout, an incomplete capture).\n")
	return b.String()
}

// run is the whole CLI: it parses args, runs one command and returns the
// exit code. It keeps no state between calls.
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage())
		return exitUsage
	}
	switch args[0] {
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage())
		return exitOK
	case "--version":
		args = append([]string{"version"}, args[1:]...)
	}
	for _, c := range commands() {
		if c.name == args[0] {
			return exitCode(c.run(args[1:], stdout, stderr), stderr)
		}
	}
	var names []string
	for _, c := range commands() {
		names = append(names, c.name)
	}
	if s := diag.Closest(args[0], names); s != "" {
		fmt.Fprintf(stderr, "karpgen: unknown command %s; did you mean %q?\n\n%s", escape.Terminal(strconv.Quote(args[0])), s, usage())
		return exitUsage
	}
	fmt.Fprintf(stderr, "karpgen: unknown command %s\n\n%s", escape.Terminal(strconv.Quote(args[0])), usage())
	return exitUsage
}

func exitCode(err error, stderr io.Writer) int {
	if err == nil {
		return exitOK
	}
	if err == errInvalid {
		return exitInvalid
	}
	if errors.Is(err, pflag.ErrHelp) {
		return exitOK
	}
	// An error may carry text of the profiles, an overlay or kustomize:
	// each of its lines is shown with nothing a terminal or CI log acts on.
	// An error without text has said what it had to already.
	for i, line := range strings.Split(err.Error(), "\n") {
		if err.Error() == "" {
			break
		}
		if i == 0 {
			fmt.Fprintf(stderr, "karpgen: %s\n", escape.Terminal(line))
		} else {
			fmt.Fprintf(stderr, "%s\n", escape.Line(line))
		}
	}
	var ee *exitError
	if errors.As(err, &ee) {
		return ee.code
	}
	var usage *action.UsageError
	if errors.As(err, &usage) {
		return exitUsage
	}
	var found *action.FoundError
	if errors.As(err, &found) {
		return exitFound
	}
	return exitFailure
}

// newFlags returns a flag set that reports errors as usage errors and
// prints the command's help on stdout for --help.
func newFlags(name string, stdout, stderr io.Writer) *pflag.FlagSet {
	fs := pflag.NewFlagSet(name, pflag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.SortFlags = false
	fs.Usage = func() { printHelp(stdout, fs) }
	return fs
}

func parse(fs *pflag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return err
		}
		var fe *formatError
		if errors.As(err, &fe) {
			return usageErr("%s: %w", fs.Name(), fe)
		}
		return usageErr("%s: %v%s", fs.Name(), err, flagHint(fs, err))
	}
	return nil
}

// unknownFlag is how pflag names a flag it does not know.
var unknownFlag = regexp.MustCompile(`unknown (?:shorthand )?flag: '?-?-?([^' ]+)'?`)

// flagHint suggests the nearest flag of the command for one it does not
// know.
func flagHint(fs *pflag.FlagSet, err error) string {
	m := unknownFlag.FindStringSubmatch(err.Error())
	if m == nil {
		return ""
	}
	var names []string
	fs.VisitAll(func(f *pflag.Flag) { names = append(names, f.Name) })
	if s := diag.Closest(m[1], names); s != "" {
		return fmt.Sprintf("; did you mean --%s?", s)
	}
	return ""
}

// printFindings prints findings with positions relative to the working
// directory, and returns errInvalid when any is an error.
func printFindings(w io.Writer, fs []diag.Finding) error {
	printer.Findings(w, relative(fs))
	if diag.HasErrors(fs) {
		return errInvalid
	}
	return nil
}

func relative(fs []diag.Finding) []diag.Finding {
	wd, _ := os.Getwd()
	diag.Relative(fs, wd)
	return fs
}
