package main

import (
	"bytes"
	"regexp"
	"strings"
)

// The synopsis of every command is generated from the command's own help
// (its usage line and its flags), so the root usage text, the README's
// command list and the help cannot disagree (TestReadmeSynopsis).

// placeholders name the value of a flag in the synopsis.
var placeholders = map[string]string{
	"profiles": "DIR", "out": "DIR", "dir": "DIR", "state": "DIR", "values": "FILE", "output-file": "FILE",
	"to": "VERSION", "from": "VERSION", "kubernetes-to": "VERSION", "karpenter-version": "VERSION", "kubernetes-version": "VERSION",
	"eval-timeout": "DURATION", "lock-wait": "DURATION", "template": "NAME", "name": "PREFIX", "region": "REGION",
	"account": "ID", "env": "NAME", "cluster": "NAME", "namespace": "NAMESPACE", "oidc-issuer": "URL", "node-group": "NAME",
	"max-environments": "N", "max-objects": "N", "allow-kinds": "KINDS", "version": "VERSION",
}

var (
	helpFlag    = regexp.MustCompile(`^\s+(?:-\w, )?--([a-z0-9-]+)(?: (\w+))?\s{2,}(.*)$`)
	formatWords = regexp.MustCompile(`output format: ([a-z]+(?:, [a-z]+)*(?: or [a-z]+)?)`)
)

// synopsisOf is one command's synopsis line.
func synopsisOf(c command) string {
	var help bytes.Buffer
	c.run([]string{"--help"}, &help, &help)
	line := strings.TrimSuffix(helpText[c.name].usage, " [flags]")
	inFlags := false
	for _, l := range strings.Split(help.String(), "\n") {
		if l == "Flags:" {
			inFlags = true
			continue
		}
		m := helpFlag.FindStringSubmatch(l)
		if !inFlags || m == nil {
			continue
		}
		name, typ, usage := m[1], m[2], m[3]
		switch {
		case strings.Contains(line, "--"+name+" "), strings.Contains(line, "--"+name+"]"):
			// The usage line names it already (upgrade's --to).
		case typ == "":
			line += " [--" + name + "]"
		case name == "output" && formatWords.MatchString(usage):
			words := formatWords.FindStringSubmatch(usage)[1]
			line += " [-o " + strings.NewReplacer(", ", "|", " or ", "|").Replace(words) + "]"
		default:
			ph := placeholders[name]
			if ph == "" {
				ph = strings.ToUpper(typ)
			}
			line += " [--" + name + " " + ph + "]"
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
