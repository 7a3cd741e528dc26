package main

import (
	"strings"

	"github.com/spf13/pflag"
)

// The synopsis of every command and the flags shell completion offers are
// read from the command's record (its usage line and the flags it
// declares), as its help is, so the root usage text, the README's command
// list, completion and the help cannot disagree (TestReadmeSynopsis).

// placeholders name the value of a flag in the synopsis; DIR and FILE
// flags are completed with file names.
var placeholders = map[string]string{
	"profiles": "DIR", "out": "DIR", "dir": "DIR", "state": "DIR", "values": "FILE", "output-file": "FILE",
	"to": "VERSION", "from": "VERSION", "kubernetes-to": "VERSION", "karpenter-version": "VERSION", "kubernetes-version": "VERSION",
	"eval-timeout": "DURATION", "lock-wait": "DURATION", "template": "NAME", "name": "PREFIX", "region": "REGION",
	"account": "ID", "env": "NAME", "cluster": "NAME", "namespace": "NAMESPACE", "oidc-issuer": "URL", "node-group": "NAME",
	"max-environments": "N", "max-objects": "N", "allow-kinds": "KINDS", "version": "VERSION", "base-rev": "REV", "base-dir": "DIR",
}

// helpFlag is a flag as a command declares it: typ is the name its help
// gives the value ("" for a boolean flag).
type helpFlag struct {
	name, typ string
	value     pflag.Value
}

// formats are the values of an output-format flag ("text", "json"), or
// none.
func (f helpFlag) formats() []string {
	if fv, ok := f.value.(*formatValue); ok {
		return fv.allowed
	}
	return nil
}

// placeholder names the flag's value; "" for a boolean flag.
func (f helpFlag) placeholder() string {
	if f.typ == "" {
		return ""
	}
	if strings.Contains(f.typ, "=") {
		return f.typ // a pair the help names as it is (diff's ENV=DIR)
	}
	if p := placeholders[f.name]; p != "" {
		return p
	}
	return strings.ToUpper(f.typ)
}

// helpFlags are the flags a command declares, in the order of its help.
func helpFlags(c command) []helpFlag {
	var out []helpFlag
	c.flagSet().VisitAll(func(f *pflag.Flag) {
		typ, _ := pflag.UnquoteUsage(f)
		out = append(out, helpFlag{f.Name, typ, f.Value})
	})
	return out
}

// synopsisOf is one command's synopsis line.
func synopsisOf(c command) string {
	line := strings.TrimSuffix(c.usage, " [flags]")
	for _, f := range helpFlags(c) {
		switch {
		case strings.Contains(line, "--"+f.name+" "), strings.Contains(line, "--"+f.name+"]"), strings.HasSuffix(line, "--"+f.name):
			// The usage line names it already (upgrade's --to).
		case f.typ == "":
			line += " [--" + f.name + "]"
		case f.formats() != nil:
			line += " [-o " + strings.Join(f.formats(), "|") + "]"
		default:
			line += " [--" + f.name + " " + f.placeholder() + "]"
		}
	}
	return line
}

// synopsis is every command's synopsis line, in the order of commands().
func synopsis() string {
	var b strings.Builder
	for _, c := range commands() {
		if strings.HasPrefix(c.name, "__") {
			continue
		}
		b.WriteString(synopsisOf(c) + "\n")
	}
	return b.String()
}
