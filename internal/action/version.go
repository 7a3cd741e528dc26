package action

import (
	"runtime/debug"
	"strings"

	"github.com/karpgen/karpgen/internal/facts"
	"github.com/karpgen/karpgen/internal/load"
	"github.com/karpgen/karpgen/internal/plan/upgrade"
)

// VersionInfo is what karpgen version reports: the module version and
// the VCS revision it was built from (from the build info Go embeds),
// and the Karpenter releases whose facts it holds.
type VersionInfo struct {
	Version  string   `json:"version"`
	Revision string   `json:"revision,omitempty"`
	Time     string   `json:"time,omitempty"`
	Modified bool     `json:"modified,omitempty"`
	Go       string   `json:"go"`
	Minors   []string `json:"karpenterMinors"`
	Releases []string `json:"karpenterReleases"`
	// LTS are the long-term-support minors with the day support ends.
	LTS []LTS `json:"karpenterLTS"`
}

// LTS is a long-term-support minor.
type LTS struct {
	Minor string `json:"minor"`
	Until string `json:"until"`
}

// Version is the build's version: stamped, the version a release sets
// (-ldflags -X main.version=...), wins over the one Go stamps from the
// module and VCS.
func Version(stamped string) VersionInfo {
	v := VersionInfo{Version: "(devel)"}
	for _, m := range facts.Minors {
		v.Minors = append(v.Minors, m.Minor)
		v.Releases = append(v.Releases, strings.TrimPrefix(m.Reference, "v"))
	}
	for _, m := range facts.LTS() {
		v.LTS = append(v.LTS, LTS{m.Minor, m.LTSUntil})
	}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return v
	}
	v.Go = info.GoVersion
	switch {
	case stamped != "":
		v.Version = stamped
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

// Releases are the Karpenter versions karpgen knows, newest first, as
// upgrade --to and --from take them; ToLTS is the word for the newest
// long-term-support minor.
func Releases() []string {
	var out []string
	for i := len(facts.Minors) - 1; i >= 0; i-- {
		out = append(out, strings.TrimPrefix(facts.Minors[i].Reference, "v"))
	}
	return out
}

// ToLTS is what upgrade --to takes for the newest long-term-support
// minor.
const ToLTS = upgrade.ToLTS

// Environments are the environment names the profiles folder defines,
// nil when it does not load (completion offers nothing then).
func Environments(dir string) []string {
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
