package main

import (
	"io"
	"strings"

	"github.com/spf13/pflag"
)

// command is one command's record, written once: its name, its flags and
// what runs it, and its --help (the usage line, what it does, an
// example). Help, completion and the README's synopsis are made from it:
// they read the flags it declares, and a command whose usage line starts
// with ENV (or [ENV...]) completes environment names.
type command struct {
	name string
	// flags declares the command's flags on fs, bound to what it reads,
	// and returns its run, given the arguments left once they are parsed.
	flags                 func(fs *pflag.FlagSet, stdout, stderr io.Writer) func(args []string) error
	usage, about, example string
	// helpOnStderr: the command's standard output is data that something
	// applies (build's objects), so even its help goes to standard error.
	helpOnStderr bool
	// parseError, when set, says what a command line its flags refuse
	// means for the command.
	parseError func(error) error
	// unparsed: the arguments are a command line being typed, given to
	// the run as they are (__complete).
	unparsed bool
}

// run parses the command's flags and runs it.
func (c command) run(args []string, stdout, stderr io.Writer) error {
	help := stdout
	if c.helpOnStderr {
		help = stderr
	}
	fs := newFlags(c.name, help, stderr)
	run := c.flags(fs, stdout, stderr)
	if c.unparsed {
		return run(args)
	}
	if err := parse(fs, args); err != nil {
		if c.parseError != nil {
			return c.parseError(err)
		}
		return err
	}
	return run(fs.Args())
}

// flagSet is the command's flags, declared and not parsed: what help,
// the synopsis and completion read.
func (c command) flagSet() *pflag.FlagSet {
	fs := newFlags(c.name, io.Discard, io.Discard)
	c.flags(fs, io.Discard, io.Discard)
	return fs
}

// takesEnvs says the command's arguments are environment names.
func (c command) takesEnvs() bool {
	f := strings.Fields(c.usage)
	return len(f) > 2 && (strings.HasPrefix(f[2], "ENV") || strings.HasPrefix(f[2], "[ENV"))
}

func commands() []command {
	return []command{
		{name: "render", flags: renderCommand,
			usage: "karpgen render [ENV...] [flags]",
			about: "Renders each environment of the profiles (all when none is named) into out/<env>/,\n" +
				"or with --check compares out/ with what they render and prints a unified diff.",
			example: "karpgen render            # every environment\n  karpgen render prod       # one\n  karpgen render --check    # in CI: exit 1 when out/ is stale"},
		{name: "vet", flags: vetCommand,
			usage:   "karpgen vet [ENV...] [flags]",
			about:   "Checks the profiles against the schema and the rule catalog (docs/rules.md); writes nothing.",
			example: "karpgen vet\n  karpgen vet prod -o json"},
		{name: "build", flags: buildCommand, helpOnStderr: true, parseError: buildParseError,
			usage: "karpgen build ENV [flags]",
			about: "Prints the Kubernetes objects of one environment, with profiles/overlays/<env>/ applied:\n" +
				"what the Argo CD plugin applies. Any failure exits non-zero with nothing on stdout.",
			example: "karpgen build prod | kubectl diff -f -"},
		{name: "init", flags: initCommand,
			usage:   "karpgen init [flags]",
			about:   "Starts a profiles folder with dev, staging and prod from a template; never overwrites a file.",
			example: "karpgen init --template workload-separation --name shop --region eu-west-1 --account 111122223333"},
		{name: "import", flags: importCommand, parseError: importParseError,
			usage: "karpgen import FILE... [flags]",
			about: "Reads Karpenter manifests of any API generation (and the Helm values in use) and writes\n" +
				"a profile that renders back to equivalent v1 objects; - reads standard input.",
			example: "kubectl get nodepools,ec2nodeclasses -o yaml | karpgen import - --values values.yaml --output-file profiles/imported.cue"},
		{name: "diff", flags: diffCommand,
			usage: "karpgen diff [ENV...] --base DIR|REV [flags]",
			about: "Renders the profiles and a base of them in memory and says what the change does to each\n" +
				"environment in Karpenter's terms: nodes replaced (drift, paced by the budgets), changed in\n" +
				"place, objects to recreate, IAM actions granted or taken away, Helm values, the version.\n" +
				"--base is the base's profiles folder (or a checkout holding it at --profiles' path) or a git\n" +
				"revision of the repository the profiles live in, read without touching the work tree.\n" +
				"Writes nothing. Exit 0 when nothing changes, 1 when something does, 3 when either side is invalid.",
			example: "karpgen diff --base origin/main\n  karpgen diff prod --base HEAD~1 -o json | jq .summary\n  karpgen diff --base ../base --profiles profiles -o markdown > comment.md"},
		{name: "upgrade", flags: upgradeCommand,
			usage: "karpgen upgrade ENV --to VERSION [flags]",
			about: "Plans the move of one environment to another Karpenter version: every minor in between,\n" +
				"what each changes (IAM, chart values, CRDs, drift), what blocks it, and the steps in order.\n" +
				"--write puts the plan, transition policies and the target's values and IAM in out/<env>/upgrade/<to>/.",
			example: "karpgen upgrade prod --to 1.14.3\n  karpgen upgrade prod --to 1.14.3 -o json | jq .blockers\n  karpgen upgrade prod --from 0.37.7 --to 1.0.14 --write"},
		{name: "promote", flags: promoteCommand,
			usage: "karpgen promote --from ENV --to ENV [flags]",
			about: "Plans moving the AMI releases one environment runs (its node classes' pinned aliases) to the\n" +
				"next: the profile fields to set, then what rendering that does, as diff tells it: the pools whose\n" +
				"nodes drift, and how their budgets pace it. Writes nothing; the profile is never edited.",
			example: "karpgen promote --from dev --to staging\n  karpgen promote --from staging --to prod --class default -o markdown"},
		{name: "rotate", flags: rotateCommand,
			usage: "karpgen rotate ENV --pool NAME --base DIR|REV [flags]",
			about: "Plans a change of a pool that would replace all its nodes at once (see karpgen diff) as three\n" +
				"changes of the profile, each with what it does: the new pool beside the old one, tried first; the\n" +
				"old one capped so that it only drains; the old one removed. Writes nothing; the profile is never edited.",
			example: "karpgen rotate prod --pool app --base origin/main\n  karpgen rotate prod --pool app --next app-2027 --base HEAD~1 -o json"},
		{name: "migrate", flags: migrateCommand,
			usage: "karpgen migrate ENV --from cluster-autoscaler --old-node-group NAME... [flags]",
			about: "Prints the runbook that brings a cluster scaled by Cluster Autoscaler and managed node groups over to\n" +
				"the Karpenter its profile describes: prepare the account and the cluster, let Karpenter provision beside\n" +
				"Cluster Autoscaler, stop it, drain the old groups one node at a time as PodDisruptionBudgets allow, remove them.\n" +
				"Each step with its commands and what to check before the next. Writes nothing.",
			example: "karpgen migrate prod --from cluster-autoscaler --old-node-group ng-general --old-node-group ng-spot\n  karpgen migrate prod --from cluster-autoscaler --old-node-group ng-general -o markdown > runbook.md"},
		{name: "simulate", flags: simulateCommand,
			usage: "karpgen simulate ENV --workloads PATH... | --state DIR --disruption [flags]",
			about: "Places workloads on the environment with Karpenter's own scheduler (sigs.k8s.io/karpenter, run by\n" +
				"karpgen-simulate): the node groups the profile keeps take the pods that ask for them, the pools take\n" +
				"the rest on the instance types they may launch, sized as the AWS provider sizes nodes. Prints where\n" +
				"each workload lands and the nodes Karpenter would launch, or why pods stay Pending in upstream's words\n" +
				"(exit 1). With --disruption, runs Karpenter's disruption controller on the nodes and pods of a\n" +
				"capture instead: the command it would start, what it saves an hour, and why every other node stays.\n" +
				"Writes nothing.",
			example: "karpgen simulate prod --workloads k8s/\n  karpgen simulate prod --workloads state/k8s-workloads.json -o json\n  karpgen simulate prod --state state --disruption -o markdown"},
		{name: "doctor", flags: doctorCommand,
			usage: "karpgen doctor ENV --capture-script | --state DIR [flags]",
			about: "Checks a live account and cluster against the bundle, offline: --capture-script prints a shell\n" +
				"script of read-only aws, kubectl and helm commands; --state checks the folder it wrote (docs/doctor.md).",
			example: "karpgen doctor prod --capture-script > capture.sh && sh capture.sh state && karpgen doctor prod --state state"},
		{name: "version", flags: versionCommand,
			usage:   "karpgen version [flags]",
			about:   "Prints karpgen's version, the revision it was built from and the Karpenter releases it knows.",
			example: "karpgen version\n  karpgen --version -o json"},
		{name: "completion", flags: completionCommand,
			usage:   "karpgen completion bash|zsh|fish",
			about:   "Prints the shell completion script: commands, flags, environment names and versions.",
			example: "source <(karpgen completion bash)\n  karpgen completion fish | source"},
		{name: "__complete", flags: completeCommand, unparsed: true},
	}
}
