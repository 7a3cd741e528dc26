package main

import (
	"fmt"
	"io"

	"github.com/spf13/pflag"
)

// printHelp writes a command's help.
func printHelp(w io.Writer, fs *pflag.FlagSet) {
	h := commandNamed(fs.Name())
	fmt.Fprintf(w, "Usage:\n  %s\n\n%s\n\nExample:\n  %s\n", h.usage, h.about, h.example)
	if flags := fs.FlagUsages(); flags != "" {
		fmt.Fprintf(w, "\nFlags:\n%s", flags)
	}
}

// commandNamed is a command's record.
func commandNamed(name string) command {
	for _, c := range commands() {
		if c.name == name {
			return c
		}
	}
	return command{name: name}
}
