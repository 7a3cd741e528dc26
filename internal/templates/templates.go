// Package templates holds the starting profiles `karpgen init` writes:
// each a CUE package with dev, staging and prod environments that vet
// without errors and render.
package templates

import (
	"bytes"
	"embed"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"
	"text/template"

	"github.com/karpgen/karpgen/internal/facts"
)

//go:embed */*.cue.tmpl
var files embed.FS

// Params fill a template.
type Params struct {
	// Name prefixes the cluster names: <name>-dev, <name>-staging, <name>-prod.
	Name              string
	Region            string
	Account           string
	KarpenterVersion  string
	KubernetesVersion string
}

// Zones are the first three zones of the region: from the region's
// zones where karpgen knows them (ca-central-1 has no c), else a, b, c.
func (p Params) Zones() string {
	zones := facts.ZoneNames(p.Region)
	if len(zones) == 0 {
		zones = []string{p.Region + "a", p.Region + "b", p.Region + "c"}
	}
	quoted := make([]string, 0, 3)
	for _, z := range zones[:min(3, len(zones))] {
		quoted = append(quoted, fmt.Sprintf("%q", z))
	}
	return strings.Join(quoted, ", ")
}

// TimeZone is the time zone of the region's location
// (facts.RegionTimeZones), UTC for a region karpgen does not know.
func (p Params) TimeZone() string {
	if tz, ok := facts.RegionTimeZones[p.Region]; ok {
		return tz
	}
	return "UTC"
}

// Names lists the templates.
func Names() []string {
	entries, _ := fs.ReadDir(files, ".")
	var out []string
	for _, e := range entries {
		if e.IsDir() {
			out = append(out, e.Name())
		}
	}
	sort.Strings(out)
	return out
}

// Render returns the files of a template by name, keyed by file name.
func Render(name string, p Params) (map[string][]byte, error) {
	entries, err := fs.ReadDir(files, name)
	if err != nil {
		return nil, fmt.Errorf("no template %q (templates: %s)", name, strings.Join(Names(), ", "))
	}
	out := map[string][]byte{}
	for _, e := range entries {
		src, err := files.ReadFile(path.Join(name, e.Name()))
		if err != nil {
			return nil, err
		}
		t, err := template.New(e.Name()).Option("missingkey=error").Parse(string(src))
		if err != nil {
			return nil, err
		}
		var b bytes.Buffer
		if err := t.Execute(&b, p); err != nil {
			return nil, err
		}
		out[strings.TrimSuffix(e.Name(), ".tmpl")] = b.Bytes()
	}
	return out, nil
}
