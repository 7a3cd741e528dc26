package main

import (
	"bytes"
	"fmt"
	"io"
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/karpgen/karpgen/generators/facts"
	"github.com/karpgen/karpgen/internal/load"
	"github.com/karpgen/karpgen/internal/templates"
)

// Shell completion: `karpgen completion bash|zsh|fish` prints a script
// that asks karpgen itself (`karpgen __complete WORDS... CURRENT`) for
// the candidates, so commands, flags, environment names (from the
// profiles) and versions (from the facts) are always the binary's own.
// A reply of filesComplete asks the shell to complete file names.

const filesComplete = ":files"

var completionScripts = map[string]string{
	"bash": `# bash completion for karpgen: source <(karpgen completion bash)
_karpgen() {
	local cur=${COMP_WORDS[COMP_CWORD]}
	local IFS=$'\n'
	local out
	out=$(karpgen __complete "${COMP_WORDS[@]:1:COMP_CWORD}" 2>/dev/null)
	if [ "$out" = ":files" ]; then
		COMPREPLY=($(compgen -f -- "$cur"))
		return
	fi
	COMPREPLY=($(compgen -W "$out" -- "$cur"))
}
complete -o default -F _karpgen karpgen
`,
	"zsh": `#compdef karpgen
# zsh completion for karpgen: source <(karpgen completion zsh), after compinit
_karpgen() {
	local -a out
	out=("${(@f)$(karpgen __complete "${(@)words[2,CURRENT]}" 2>/dev/null)}")
	if [[ "${out[1]}" == ":files" ]]; then
		_files
		return
	fi
	compadd -- "${(@)out}"
}
compdef _karpgen karpgen
`,
	"fish": `# fish completion for karpgen: karpgen completion fish | source
function __karpgen_complete
	set -l out (karpgen __complete (commandline -opc)[2..-1] (commandline -ct) 2>/dev/null)
	if test "$out[1]" = ":files"
		__fish_complete_path (commandline -ct)
		return
	end
	printf '%s\n' $out
end
complete -c karpgen -f -a '(__karpgen_complete)'
`,
}

func runCompletion(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("completion", stdout, stderr)
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 || completionScripts[fs.Arg(0)] == "" {
		return usageErr("completion: name the shell: bash, zsh or fish")
	}
	_, err := io.WriteString(stdout, completionScripts[fs.Arg(0)])
	return err
}

// runComplete answers a completion script: the candidates for the last
// word of args (which may be empty), one per line.
func runComplete(args []string, stdout, _ io.Writer) error {
	for _, c := range complete(args) {
		fmt.Fprintln(stdout, c)
	}
	return nil
}

// valueFlags are the flags whose value is completed, and with what.
var valueFlags = map[string]func(cmd string, args []string) []string{
	"--template": func(string, []string) []string { return templates.Names() },
	"--to":       func(string, []string) []string { return releases() },
	"--from":     func(string, []string) []string { return releases() },
	"-o": func(cmd string, _ []string) []string {
		if cmd == "upgrade" {
			return []string{"text", "markdown", "json"}
		}
		return []string{"text", "json"}
	},
}

// fileFlags take a file or folder.
var fileFlags = []string{"--profiles", "--out", "--dir", "--state", "--values", "--output-file"}

// envCommands take environment names.
var envCommands = []string{"render", "vet", "build", "upgrade", "doctor"}

func complete(args []string) []string {
	if len(args) == 0 {
		args = []string{""}
	}
	cur := args[len(args)-1]
	if len(args) == 1 {
		var names []string
		for _, c := range commands() {
			if !strings.HasPrefix(c.name, "__") {
				names = append(names, c.name)
			}
		}
		return prefixed(names, cur)
	}
	cmd := args[0]
	if prev := args[len(args)-2]; strings.HasPrefix(prev, "-") && !strings.Contains(prev, "=") {
		if slices.Contains(fileFlags, prev) {
			return []string{filesComplete}
		}
		if prev == "--output" {
			prev = "-o"
		}
		if f, ok := valueFlags[prev]; ok {
			return prefixed(f(cmd, args), cur)
		}
	}
	switch {
	case strings.HasPrefix(cur, "-"):
		return prefixed(flagsOf(cmd), cur)
	case cmd == "completion":
		return prefixed(slices.Sorted(maps.Keys(completionScripts)), cur)
	case cmd == "import":
		return []string{filesComplete}
	case slices.Contains(envCommands, cmd):
		return prefixed(environments(args), cur)
	}
	return nil
}

// flagsOf lists a command's flags, read from its own help.
func flagsOf(cmd string) []string {
	for _, c := range commands() {
		if c.name != cmd {
			continue
		}
		var help bytes.Buffer
		c.run([]string{"--help"}, &help, &help)
		var out []string
		for _, m := range flagName.FindAllStringSubmatch(help.String(), -1) {
			out = append(out, "--"+m[1])
		}
		return slices.Compact(out)
	}
	return nil
}

var flagName = regexp.MustCompile(`(?m)^\s+(?:-\w, )?--([a-z0-9-]+)`)

// environments are the environment names of the profiles folder the
// command line names (--profiles), else ./profiles.
func environments(args []string) []string {
	dir := "profiles"
	for i, a := range args[:len(args)-1] {
		if a == "--profiles" && i+1 < len(args)-1 {
			dir = args[i+1]
		} else if v, ok := strings.CutPrefix(a, "--profiles="); ok {
			dir = v
		}
	}
	folder, closeFn, err := load.Open(dir)
	if err != nil {
		return nil
	}
	defer closeFn()
	res, err := load.Load(folder, nil, nil)
	if err != nil {
		return nil
	}
	return res.Names
}

// releases are the Karpenter versions karpgen knows, newest first.
func releases() []string {
	var out []string
	for i := len(facts.Minors) - 1; i >= 0; i-- {
		out = append(out, strings.TrimPrefix(facts.Minors[i].Reference, "v"))
	}
	return out
}

func prefixed(candidates []string, prefix string) []string {
	var out []string
	for _, c := range candidates {
		if strings.HasPrefix(c, prefix) {
			out = append(out, c)
		}
	}
	return out
}
