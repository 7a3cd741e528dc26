package importer

import (
	"slices"
	"testing"
)

// TestSplitPath: a finding's path splits into labels, quoted labels
// whole (with their dots and brackets) and list elements.
func TestSplitPath(t *testing.T) {
	for path, want := range map[string][]string{
		`environments.dev.nodePools.app.zones[0]`:                               {"environments", "dev", "nodePools", "app", "zones", "[0]"},
		`environments.dev.nodePools.app.labels."kubernetes.io/host"`:            {"environments", "dev", "nodePools", "app", "labels", "kubernetes.io/host"},
		`environments."my env".nodeClasses."a.b[1]".blockDevices[2].volumeSize`: {"environments", "my env", "nodeClasses", "a.b[1]", "blockDevices", "[2]", "volumeSize"},
		`environments.dev.nodePools.app.requirements[1]`:                        {"environments", "dev", "nodePools", "app", "requirements", "[1]"},
	} {
		if got := splitPath(path); !slices.Equal(got, want) {
			t.Errorf("splitPath(%s) = %q, want %q", path, got, want)
		}
	}
}
