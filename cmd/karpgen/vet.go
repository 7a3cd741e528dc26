package main

import (
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/karpgen/karpgen/internal/action"
	"github.com/karpgen/karpgen/internal/diag"
	"github.com/karpgen/karpgen/internal/printer"
	"github.com/karpgen/karpgen/internal/util/escape"
)

func vetCommand(fs *pflag.FlagSet, stdout, stderr io.Writer) func(args []string) error {
	var v action.Vet
	var format, on string
	addProfilesFlag(fs, &v.Dir)
	addEvalFlags(fs, &v.Eval)
	addFormatFlag(fs, &format, "output format: text or json", "text", "json")
	fs.StringVar(&v.Values, "values", "", "check a Helm values file in use against the chart of --version instead of the profiles")
	fs.StringVar(&v.Version, "version", "", "the Karpenter version whose chart --values is for")
	fs.BoolVar(&v.ExplainIAM, "explain-iam", false, "list every request the controller makes with its decision under the guardrails, and the deciding statements")
	fs.StringArrayVar(&v.Workloads, "workloads", nil, "also place the workloads of `PATH` (a manifest or a folder; repeat it) with Karpenter's scheduler (karpgen simulate), and refuse a workload whose pods would never schedule")
	fs.StringVar(&on, "on", "", "check support windows as of `DAY` (YYYY-MM-DD; default today, or the day of SOURCE_DATE_EPOCH)")
	return func(args []string) error {
		today, err := dayOf(on)
		if err != nil {
			return usageErr("vet: --on: %v", err)
		}
		v.Envs, v.Today = fs.Args(), today
		res, err := v.Run()
		if err != nil {
			return err
		}
		if v.ExplainIAM {
			return explain(res, format, stdout, stderr)
		}
		checked := counted(len(res.Envs), "environment", "environments") + listed(res.Envs)
		if res.Values != "" {
			checked = fmt.Sprintf("%s against the chart of Karpenter %s", escape.Terminal(res.Values), res.Minor)
		}
		if format == "text" {
			fmt.Fprintf(stdout, "vet: %s: %s\n", checked, tally(res.Findings))
			return printFindings(stderr, res.Findings)
		}
		if err := printer.FindingsJSON(stdout, relative(res.Findings)); err != nil {
			return err
		}
		if diag.HasErrors(res.Findings) {
			return errInvalid
		}
		return nil
	}
}

// dayOf is the day vet checks support windows for: the --on flag, else
// the day of SOURCE_DATE_EPOCH (the reproducible-builds convention, so
// that a pinned run says the same every day), else today in UTC.
func dayOf(on string) (string, error) {
	if on != "" {
		if _, err := time.Parse(time.DateOnly, on); err != nil {
			return "", fmt.Errorf("%q is not a day written YYYY-MM-DD", on)
		}
		return on, nil
	}
	if epoch := os.Getenv("SOURCE_DATE_EPOCH"); epoch != "" {
		secs, err := strconv.ParseInt(epoch, 10, 64)
		if err != nil {
			return "", fmt.Errorf("SOURCE_DATE_EPOCH %q is not a number of seconds", epoch)
		}
		return time.Unix(secs, 0).UTC().Format(time.DateOnly), nil
	}
	return time.Now().UTC().Format(time.DateOnly), nil
}

// explain prints every request of each environment with its decision: a
// table, or with -o json a list a security team can review.
func explain(res *action.Vetted, format string, stdout, stderr io.Writer) error {
	findings := res.Findings
	if err := printer.Report(stdout, format, res.Rows); err != nil {
		return err
	}
	if diag.HasErrors(findings) {
		if format == "text" {
			_ = printFindings(stderr, findings)
		}
		return errInvalid
	}
	return nil
}

// tally counts findings by severity: "0 errors, 2 warnings, 1 note".
func tally(findings []diag.Finding) string {
	n := map[diag.Severity]int{}
	for _, f := range findings {
		n[f.Severity]++
	}
	return counted(n[diag.Error], "error", "errors") + ", " + counted(n[diag.Warning], "warning", "warnings") + ", " + counted(n[diag.Note], "note", "notes")
}

func counted(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

// listed names up to five environments: " (dev, prod)".
func listed(names []string) string {
	if len(names) == 0 {
		return ""
	}
	shown := names
	if len(shown) > 5 {
		shown = append(slices.Clone(shown[:5]), fmt.Sprintf("and %d more", len(names)-5))
	}
	return " (" + escape.Terminal(strings.Join(shown, ", ")) + ")"
}
