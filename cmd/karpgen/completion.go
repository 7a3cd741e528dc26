package main

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/spf13/pflag"

	"github.com/karpgen/karpgen/internal/action"
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
	local cur=${COMP_WORDS[COMP_CWORD]} out c
	out=$(karpgen __complete "${COMP_WORDS[@]:1:COMP_CWORD}" 2>/dev/null)
	COMPREPLY=()
	if [ "$out" = ":files" ]; then
		mapfile -t COMPREPLY < <(compgen -f -- "$cur")
		return
	fi
	# The candidates are data: compared as text, never expanded (compgen -W
	# would run a $(...) in one), and quoted as the words they are.
	while IFS= read -r c; do
		if [ -n "$c" ] && [[ $c == "$cur"* ]]; then
			COMPREPLY+=("$(printf '%q' "$c")")
		fi
	done <<<"$out"
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

func completionCommand(fs *pflag.FlagSet, stdout, stderr io.Writer) func(args []string) error {
	return func(args []string) error {
		if fs.NArg() != 1 || completionScripts[fs.Arg(0)] == "" {
			return usageErr("completion: name the shell: bash, zsh or fish")
		}
		_, err := io.WriteString(stdout, completionScripts[fs.Arg(0)])
		return err
	}
}

// completeCommand answers a completion script: the candidates for the
// last word of args (which may be empty), one per line. Its arguments are
// the command line being typed, never parsed as its own flags.
func completeCommand(_ *pflag.FlagSet, stdout, _ io.Writer) func(args []string) error {
	return func(args []string) error {
		for _, c := range complete(args) {
			fmt.Fprintln(stdout, c)
		}
		return nil
	}
}

// valueFlags are the flags whose value is completed from karpgen's own
// tables; file and folder flags and output formats come from the flags'
// declarations.
var valueFlags = map[string]func() []string{
	"--template": action.TemplateNames,
	"--to":       func() []string { return append(action.Releases(), action.ToLTS) },
	"--from":     action.Releases,
}

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
		for _, f := range flagsOf(cmd) {
			if "--"+f.name != prev && !(prev == "-o" && f.name == "output") {
				continue
			}
			switch p := f.placeholder(); {
			case p == "DIR" || p == "FILE":
				return []string{filesComplete}
			case f.formats() != nil:
				return prefixed(f.formats(), cur)
			}
		}
		if values, ok := valueFlags[prev]; ok {
			return prefixed(values(), cur)
		}
	}
	switch {
	case strings.HasPrefix(cur, "-"):
		var names []string
		for _, f := range flagsOf(cmd) {
			names = append(names, "--"+f.name)
		}
		return prefixed(names, cur)
	case cmd == "completion":
		return prefixed(slices.Sorted(maps.Keys(completionScripts)), cur)
	case cmd == "import":
		return []string{filesComplete}
	case commandNamed(cmd).takesEnvs():
		return prefixed(environments(args), cur)
	}
	return nil
}

// flagsOf lists a command's flags, as it declares them.
func flagsOf(cmd string) []helpFlag {
	for _, c := range commands() {
		if c.name == cmd {
			return helpFlags(c)
		}
	}
	return nil
}

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
	return action.Environments(dir)
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
