package main

import (
	"bytes"
	"regexp"
	"strings"
)

// The synopsis of every command and the flags shell completion offers are
// read from the command's own help (its usage line and its flags), so the
// root usage text, the README's command list, completion and the help
// cannot disagree (TestReadmeSynopsis).

// placeholders name the value of a flag in the synopsis; DIR and FILE
// flags are completed with file names.
var placeholders = map[string]string{
	"profiles": "DIR", "out": "DIR", "dir": "DIR", "state": "DIR", "values": "FILE", "output-file": "FILE",
	"to": "VERSION", "from": "VERSION", "kubernetes-to": "VERSION", "karpenter-version": "VERSION", "kubernetes-version": "VERSION",
	"eval-timeout": "DURATION", "lock-wait": "DURATION", "template": "NAME", "name": "PREFIX", "region": "REGION",
	"account": "ID", "env": "NAME", "cluster": "NAME", "namespace": "NAMESPACE", "oidc-issuer": "URL", "node-group": "NAME",
	"max-environments": "N", "max-objects": "N", "allow-kinds": "KINDS", "version": "VERSION", "base-rev": "REV", "base-dir": "DIR",
}

var (
	helpFlagLine = regexp.MustCompile(`^\s+(?:-\w, )?--([a-z0-9-]+)(?: (\w+))?\s{2,}(.*)$`)
	formatWords  = regexp.MustCompile(`output format: ([a-z]+(?:, [a-z]+)*(?: or [a-z]+)?)`)
)

// helpFlag is a flag as a command's help lists it.
type helpFlag struct {
	name, typ, usage string
}

// formats are the values of an output-format flag ("text", "json"), or
// none.
func (f helpFlag) formats() []string {
	m := formatWords.FindStringSubmatch(f.usage)
	if f.name != "output" || m == nil {
		return nil
	}
	return strings.Split(strings.NewReplacer(", ", "|", " or ", "|").Replace(m[1]), "|")
}

// placeholder names the flag's value; "" for a boolean flag.
func (f helpFlag) placeholder() string {
	if f.typ == "" {
		return ""
	}
	if p := placeholders[f.name]; p != "" {
		return p
	}
	return strings.ToUpper(f.typ)
}

// helpFlags are the flags of a command's --help, in its order.
func helpFlags(c command) []helpFlag {
	var help bytes.Buffer
	c.run([]string{"--help"}, &help, &help)
	var out []helpFlag
	inFlags := false
	for _, l := range strings.Split(help.String(), "\n") {
		if l == "Flags:" {
			inFlags = true
			continue
		}
		if m := helpFlagLine.FindStringSubmatch(l); inFlags && m != nil {
			out = append(out, helpFlag{m[1], m[2], m[3]})
		}
	}
	return out
}

// synopsisOf is one command's synopsis line.
func synopsisOf(c command) string {
	line := strings.TrimSuffix(c.usage, " [flags]")
	for _, f := range helpFlags(c) {
		switch {
		case strings.Contains(line, "--"+f.name+" "), strings.Contains(line, "--"+f.name+"]"):
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
