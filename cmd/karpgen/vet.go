package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/karpgen/karpgen/internal/diag"
	"github.com/karpgen/karpgen/internal/guardrails"
	"github.com/karpgen/karpgen/internal/lint"
	"github.com/karpgen/karpgen/internal/model"
	"github.com/karpgen/karpgen/internal/pipeline"
	"github.com/karpgen/karpgen/internal/printer"
	"github.com/karpgen/karpgen/internal/simulate"
	"github.com/karpgen/karpgen/internal/util/escape"
	"github.com/karpgen/karpgen/internal/util/gcpolicy"
)

func runVet(args []string, stdout, stderr io.Writer) error {
	var dir, format, valuesFile, version, on string
	var explainIAM bool
	var workloads []string
	var ev evalFlags
	fs := newFlags("vet", stdout, stderr)
	addProfilesFlag(fs, &dir)
	addEvalFlags(fs, &ev)
	addFormatFlag(fs, &format, "output format: text or json", "text", "json")
	fs.StringVar(&valuesFile, "values", "", "check a Helm values file in use against the chart of --version instead of the profiles")
	fs.StringVar(&version, "version", "", "the Karpenter version whose chart --values is for")
	fs.BoolVar(&explainIAM, "explain-iam", false, "list every request the controller makes with its decision under the guardrails, and the deciding statements")
	fs.StringArrayVar(&workloads, "workloads", nil, "also place the workloads of `PATH` (a manifest or a folder; repeat it) with Karpenter's scheduler (karpgen simulate), and refuse a workload whose pods would never schedule")
	fs.StringVar(&on, "on", "", "check support windows as of `DAY` (YYYY-MM-DD; default today, or the day of SOURCE_DATE_EPOCH)")
	if err := parse(fs, args); err != nil {
		return err
	}
	today, err := dayOf(on)
	if err != nil {
		return usageErr("vet: --on: %v", err)
	}
	var findings []diag.Finding
	var checked string
	switch {
	case valuesFile != "":
		if version == "" || fs.NArg() > 0 {
			return usageErr("vet: --values FILE needs --version VERSION, and no environment")
		}
		minor, err := model.MinorOf(version)
		if err != nil {
			return usageErr("vet: --version: %v", err)
		}
		data, err := os.ReadFile(valuesFile)
		if err != nil {
			return err
		}
		findings = diag.Sort(lint.CheckValues(valuesFile, data, minor))
		checked = fmt.Sprintf("%s against the chart of Karpenter %s", escape.Terminal(valuesFile), minor)
	case version != "":
		return usageErr("vet: --version is for --values")
	default:
		if explainIAM && fs.NArg() == 0 {
			return usageErr("vet: --explain-iam needs the environments named")
		}
		res, err := pipeline.Check(pipeline.Options{Dir: dir, Envs: fs.Args(), Timeout: ev.timeout, Limits: &ev.limits, GC: gcpolicy.Fleet, Today: today, KeepInvalid: explainIAM})
		if err != nil {
			return err
		}
		findings = res.Findings
		envs := res.Names
		if !res.All {
			envs = fs.Args()
		}
		checked = counted(len(envs), "environment", "environments") + listed(envs)
		if explainIAM {
			return explain(res.Envs, findings, format, stdout, stderr)
		}
		if len(workloads) > 0 {
			placed, err := vetWorkloads(res.Envs, workloads)
			if err != nil {
				return err
			}
			findings = diag.Sort(append(findings, placed...))
		}
	}
	if format == "text" {
		fmt.Fprintf(stdout, "vet: %s: %s\n", checked, tally(findings))
		return printFindings(stderr, findings)
	}
	if err := printer.FindingsJSON(stdout, relative(findings)); err != nil {
		return err
	}
	if diag.HasErrors(findings) {
		return errInvalid
	}
	return nil
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
func explain(envs []*model.Env, findings []diag.Finding, format string, stdout, stderr io.Writer) error {
	var rows []guardrails.Row
	for _, e := range envs {
		r, err := guardrails.Explain(e)
		if err != nil {
			return err
		}
		rows = append(rows, r...)
	}
	if format == "json" {
		if err := printer.JSON(stdout, rows); err != nil {
			return err
		}
	} else {
		tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "ENV\tFROM\tACTION\tRESOURCE\tDECISION\tBY")
		for _, r := range rows {
			resource := r.Resource
			if len(r.Types) > 0 {
				resource += " (" + strings.Join(r.Types, ", ") + ")"
			}
			by := strings.Join(r.By, "; ")
			if r.Missing != "" {
				by = "no allow in " + r.Missing
				if len(r.Near) > 0 {
					by += ": " + strings.Join(r.Near, "; ")
				}
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", escape.Terminal(r.Env), escape.Terminal(r.From), r.Action, escape.Terminal(resource), r.Decision, escape.Terminal(by))
		}
		if err := tw.Flush(); err != nil {
			return err
		}
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

// vetWorkloads places the workloads on every valid environment and
// returns what would never schedule.
func vetWorkloads(envs []*model.Env, paths []string) ([]diag.Finding, error) {
	helper, err := simulate.FindHelper()
	if err != nil {
		return nil, &exitError{exitFailure, fmt.Errorf("vet: --workloads: %w", err)}
	}
	ctx, cancel := context.WithTimeout(context.Background(), workloadsTimeout)
	defer cancel()
	ws, err := simulate.ReadWorkloads(ctx, paths)
	if err != nil {
		return nil, &exitError{exitFailure, fmt.Errorf("vet: --workloads: %w", err)}
	}
	var out []diag.Finding
	for _, e := range envs {
		report, err := simulateEnv(ctx, e, helper, ws)
		if err != nil {
			return nil, &exitError{exitFailure, fmt.Errorf("vet: --workloads: %s: %w", e.Name, err)}
		}
		out = append(out, report.Findings()...)
	}
	return out, nil
}
