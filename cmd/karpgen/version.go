package main

import (
	"fmt"
	"io"
	"runtime/debug"
	"strings"

	"github.com/karpgen/karpgen/internal/facts"
	"github.com/karpgen/karpgen/internal/printer"
)

// versionInfo is what karpgen version prints: the module version and
// the VCS revision it was built from (from the build info Go embeds),
// and the Karpenter releases whose facts it holds.
type versionInfo struct {
	Version  string   `json:"version"`
	Revision string   `json:"revision,omitempty"`
	Time     string   `json:"time,omitempty"`
	Modified bool     `json:"modified,omitempty"`
	Go       string   `json:"go"`
	Minors   []string `json:"karpenterMinors"`
	Releases []string `json:"karpenterReleases"`
	// LTS are the long-term-support minors with the day support ends.
	LTS []lts `json:"karpenterLTS"`
}

// lts is a long-term-support minor.
type lts struct {
	Minor string `json:"minor"`
	Until string `json:"until"`
}

// version is the release a build says it is: hack/release.sh sets it
// (-ldflags -X main.version=...) to the tag, or to the snapshot's name,
// so that a binary says what its release folder and archive say. Other
// builds take the version Go stamps from the module and VCS.
var version string

func buildVersion() versionInfo {
	v := versionInfo{Version: "(devel)"}
	for _, m := range facts.Minors {
		v.Minors = append(v.Minors, m.Minor)
		v.Releases = append(v.Releases, strings.TrimPrefix(m.Reference, "v"))
	}
	for _, m := range facts.LTS() {
		v.LTS = append(v.LTS, lts{m.Minor, m.LTSUntil})
	}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return v
	}
	v.Go = info.GoVersion
	switch {
	case version != "":
		v.Version = version
	case info.Main.Version != "":
		v.Version = info.Main.Version
	}
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			v.Revision = s.Value
		case "vcs.time":
			v.Time = s.Value
		case "vcs.modified":
			v.Modified = s.Value == "true"
		}
	}
	return v
}

func runVersion(args []string, stdout, stderr io.Writer) error {
	var format string
	fs := newFlags("version", stdout, stderr)
	addFormatFlag(fs, &format, "output format: text or json", "text", "json")
	if err := parse(fs, args); err != nil {
		return err
	}
	v := buildVersion()
	if format == "json" {
		return printer.JSON(stdout, v)
	}
	fmt.Fprintf(stdout, "karpgen %s (Karpenter %s to %s)\n", v.Version, facts.Oldest().Minor, facts.Newest().Minor)
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
