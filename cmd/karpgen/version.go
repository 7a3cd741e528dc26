package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/pflag"

	"github.com/karpgen/karpgen/internal/action"
	"github.com/karpgen/karpgen/internal/printer"
)

// version is the release a build says it is: hack/release.sh sets it
// (-ldflags -X main.version=...) to the tag, or to the snapshot's name,
// so that a binary says what its release folder and archive say. Other
// builds take the version Go stamps from the module and VCS.
var version string

func versionCommand(fs *pflag.FlagSet, stdout, stderr io.Writer) func(args []string) error {
	var format string
	addFormatFlag(fs, &format, "output format: text or json", "text", "json")
	return func(args []string) error {
		v := action.Version(version)
		if format == "json" {
			return printer.JSON(stdout, v)
		}
		fmt.Fprintf(stdout, "karpgen %s (Karpenter %s to %s)\n", v.Version, v.Minors[0], v.Minors[len(v.Minors)-1])
		if v.Revision != "" {
			state := ""
			if v.Modified {
				state = ", with uncommitted changes"
			}
			fmt.Fprintf(stdout, "revision %s (%s%s)\n", v.Revision, v.Time, state)
		}
		fmt.Fprintf(stdout, "built with %s\nKarpenter releases: %s\n", v.Go, strings.Join(v.Releases, ", "))
		var l []string
		for _, m := range v.LTS {
			l = append(l, m.Minor+" ends on "+m.Until)
		}
		fmt.Fprintf(stdout, "long-term support: %s\n", strings.Join(l, ", "))
		return nil
	}
}
