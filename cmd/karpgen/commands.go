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
	// and returns its run, which parses args into fs first.
	flags                 func(fs *pflag.FlagSet, stdout, stderr io.Writer) func(args []string) error
	usage, about, example string
	// helpOnStderr: the command's standard output is data that something
	// applies (build's objects), so even its help goes to standard error.
	helpOnStderr bool
}

// run runs the command on its arguments.
func (c command) run(args []string, stdout, stderr io.Writer) error {
	help := stdout
	if c.helpOnStderr {
		help = stderr
	}
	return c.flags(newFlags(c.name, help, stderr), stdout, stderr)(args)
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
		{"render", renderCommand,
			"karpgen render [ENV...] [flags]",
			"Renders each environment of the profiles (all when none is named) into out/<env>/,\n" +
				"or with --check compares out/ with what they render and prints a unified diff.",
			"karpgen render            # every environment\n  karpgen render prod       # one\n  karpgen render --check    # in CI: exit 1 when out/ is stale", false},
		{"vet", vetCommand,
			"karpgen vet [ENV...] [flags]",
			"Checks the profiles against the schema and the rule catalog (docs/rules.md); writes nothing.",
			"karpgen vet\n  karpgen vet prod -o json", false},
		{"build", buildCommand,
			"karpgen build ENV [flags]",
			"Prints the Kubernetes objects of one environment, with profiles/overlays/<env>/ applied:\n" +
				"what the Argo CD plugin applies. Any failure exits non-zero with nothing on stdout.",
			"karpgen build prod | kubectl diff -f -", true},
		{"init", initCommand,
			"karpgen init [flags]",
			"Starts a profiles folder with dev, staging and prod from a template; never overwrites a file.",
			"karpgen init --template workload-separation --name shop --region eu-west-1 --account 111122223333", false},
		{"import", importCommand,
			"karpgen import FILE... [flags]",
			"Reads Karpenter manifests of any API generation (and the Helm values in use) and writes\n" +
				"a profile that renders back to equivalent v1 objects; - reads standard input.",
			"kubectl get nodepools,ec2nodeclasses -o yaml | karpgen import - --values values.yaml --output-file profiles/imported.cue", false},
		{"diff", diffCommand,
			"karpgen diff [ENV...] --base DIR|REV [flags]",
			"Renders the profiles and a base of them in memory and says what the change does to each\n" +
				"environment in Karpenter's terms: nodes replaced (drift, paced by the budgets), changed in\n" +
				"place, objects to recreate, IAM actions granted or taken away, Helm values, the version.\n" +
				"--base is the base's profiles folder (or a checkout holding it at --profiles' path) or a git\n" +
				"revision of the repository the profiles live in, read without touching the work tree.\n" +
				"Writes nothing. Exit 0 when nothing changes, 1 when something does, 3 when either side is invalid.",
			"karpgen diff --base origin/main\n  karpgen diff prod --base HEAD~1 -o json | jq .summary\n  karpgen diff --base ../base --profiles profiles -o markdown > comment.md", false},
		{"upgrade", upgradeCommand,
			"karpgen upgrade ENV --to VERSION [flags]",
			"Plans the move of one environment to another Karpenter version: every minor in between,\n" +
				"what each changes (IAM, chart values, CRDs, drift), what blocks it, and the steps in order.\n" +
				"--write puts the plan, transition policies and the target's values and IAM in out/<env>/upgrade/<to>/.",
			"karpgen upgrade prod --to 1.14.3\n  karpgen upgrade prod --to 1.14.3 -o json | jq .blockers\n  karpgen upgrade prod --from 0.37.7 --to 1.0.14 --write", false},
		{"promote", promoteCommand,
			"karpgen promote --from ENV --to ENV [flags]",
			"Plans moving the AMI releases one environment runs (its node classes' pinned aliases) to the\n" +
				"next: the profile fields to set, then what rendering that does, as diff tells it: the pools whose\n" +
				"nodes drift, and how their budgets pace it. Writes nothing; the profile is never edited.",
			"karpgen promote --from dev --to staging\n  karpgen promote --from staging --to prod --class default -o markdown", false},
		{"rotate", rotateCommand,
			"karpgen rotate ENV --pool NAME --base DIR|REV [flags]",
			"Plans a change of a pool that would replace all its nodes at once (see karpgen diff) as three\n" +
				"changes of the profile, each with what it does: the new pool beside the old one, tried first; the\n" +
				"old one capped so that it only drains; the old one removed. Writes nothing; the profile is never edited.",
			"karpgen rotate prod --pool app --base origin/main\n  karpgen rotate prod --pool app --next app-2027 --base HEAD~1 -o json", false},
		{"migrate", migrateCommand,
			"karpgen migrate ENV --from cluster-autoscaler --old-node-group NAME... [flags]",
			"Prints the runbook that brings a cluster scaled by Cluster Autoscaler and managed node groups over to\n" +
				"the Karpenter its profile describes: prepare the account and the cluster, let Karpenter provision beside\n" +
				"Cluster Autoscaler, stop it, drain the old groups one node at a time as PodDisruptionBudgets allow, remove them.\n" +
				"Each step with its commands and what to check before the next. Writes nothing.",
			"karpgen migrate prod --from cluster-autoscaler --old-node-group ng-general --old-node-group ng-spot\n  karpgen migrate prod --from cluster-autoscaler --old-node-group ng-general -o markdown > runbook.md", false},
		{"simulate", simulateCommand,
			"karpgen simulate ENV --workloads PATH... [flags]",
			"Places workloads on the environment with Karpenter's own scheduler (sigs.k8s.io/karpenter, run by\n" +
				"karpgen-simulate): the node groups the profile keeps take the pods that ask for them, the pools take\n" +
				"the rest on the instance types they may launch, sized as the AWS provider sizes nodes. Prints where\n" +
				"each workload lands and the nodes Karpenter would launch, or why pods stay Pending in upstream's words\n" +
				"(exit 1). Writes nothing.",
			"karpgen simulate prod --workloads k8s/\n  karpgen simulate prod --workloads state/k8s-workloads.json -o json", false},
		{"doctor", doctorCommand,
			"karpgen doctor ENV --capture-script | --state DIR [flags]",
			"Checks a live account and cluster against the bundle, offline: --capture-script prints a shell\n" +
				"script of read-only aws, kubectl and helm commands; --state checks the folder it wrote (docs/doctor.md).",
			"karpgen doctor prod --capture-script > capture.sh && sh capture.sh state && karpgen doctor prod --state state", false},
		{"version", versionCommand,
			"karpgen version [flags]",
			"Prints karpgen's version, the revision it was built from and the Karpenter releases it knows.",
			"karpgen version\n  karpgen --version -o json", false},
		{"completion", completionCommand,
			"karpgen completion bash|zsh|fish",
			"Prints the shell completion script: commands, flags, environment names and versions.",
			"source <(karpgen completion bash)\n  karpgen completion fish | source", false},
		{name: "__complete", flags: completeCommand},
	}
}
