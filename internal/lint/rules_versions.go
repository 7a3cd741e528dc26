package lint

import (
	"fmt"
	"strings"

	"github.com/karpgen/karpgen/internal/diag"
	"github.com/karpgen/karpgen/internal/facts"
)

// versionsRules are the rules of the group Versions.
var versionsRules = []*Rule{
	{
		ID: "version/argocd", Severity: diag.Error, Group: "Versions",
		Summary: "The Argo CD the profile states (argocd.version) runs what karpgen generates for it: 2.6 for Applications of several sources, 2.8 for Karpenter 1.0's CRD values, 2.10 for an ApplicationSet, 3.1 for native oci:// chart sources.",
		check: func(c *Context) {
			a := c.E.Application
			if a == nil || c.P.ArgoCD.Version == "" {
				return
			}
			need, why := a.NeedsArgoCD()
			if have := c.P.ArgoCD.Version; facts.MinorLess(have, need) {
				c.Report("argocd.version", fmt.Sprintf("upgrade Argo CD to %s or later, or change what needs it", need),
					"Argo CD %s cannot run what karpgen writes for this environment: %s needs Argo CD %s", have, why, need)
			}
		},
	},
	{
		ID: "version/known-regression", Severity: diag.Warning, Group: "Versions",
		Summary: "The Karpenter patch release has no known regression (the facts table lists the patches upstream had to fix).",
		check: func(c *Context) {
			if c.Minor == nil {
				return
			}
			if b, ok := c.Minor.BadPatch(c.Version); ok {
				c.Report("karpenter.version", fmt.Sprintf("use %s.%d or later", c.Minor.Minor, b.FixedIn),
					"Karpenter %s has a known regression: %s (%s)", c.Version, b.Summary, b.Issue)
			}
		},
	},
	{
		ID: "version/patch", Severity: diag.Error, Group: "Versions",
		Summary: "The Karpenter version is a release karpgen knows: a patch up to the newest of its minor (a newer one has no chart to pull).",
		check: func(c *Context) {
			if c.Minor == nil || c.Minor.Known(c.Version) {
				return
			}
			newest := c.Minor.NewestPatch()
			c.Report("karpenter.version", fmt.Sprintf("use %s, or a karpgen that knows %s", newest, c.Version),
				"Karpenter %s is not a release karpgen knows: the newest %s patch is %s (helm --version %s would find no chart)", c.Version, c.Minor.Minor, newest, c.Version)
		},
	},
	{
		ID: "version/newer-patch", Severity: diag.Warning, Group: "Versions",
		Summary: "The Karpenter version is the newest patch of its minor karpgen knows: a patch carries fixes and changes no API, chart key or IAM.",
		check: func(c *Context) {
			if c.Minor == nil || !c.Minor.Known(c.Version) {
				return
			}
			newest := c.Minor.NewestPatch()
			if !c.Version.Less(newest) {
				return
			}
			c.Report("karpenter.version", fmt.Sprintf("move to %s: `karpgen upgrade %s --to %s` plans it (no hop, no API change)", newest, c.E.Name, newest),
				"Karpenter %s is not the newest %s patch: %s is", c.Version, c.Minor.Minor, newest)
		},
	},
	{
		ID: "version/support", Severity: diag.Warning, Group: "Versions",
		Summary: "The Karpenter minor is supported on the day vet runs: long-term-support minors for twelve months, others until the next minor is released.",
		check: func(c *Context) {
			if c.Minor == nil || c.Today == "" || c.Minor.SupportedOn(c.Today) {
				return
			}
			hint := fmt.Sprintf("move to a supported minor: `karpgen upgrade %s --to lts` or `--to %s`", c.E.Name, facts.Newest().NewestPatch())
			c.Report("karpenter.version", hint, "%s; on %s it is out of support (no more fixes, security ones included)", c.Minor.Support(), c.Today)
		},
	},
	{
		ID: "version/format", Severity: diag.Error, Group: "Versions",
		Summary: "karpenter.version is a release version MAJOR.MINOR.PATCH.",
		Hint:    "name an exact release, e.g. \"1.2.3\"",
		check: func(c *Context) {
			if c.E.VersionErr != nil {
				c.Report("karpenter.version", "", "karpenter.version %q is not a release version (MAJOR.MINOR.PATCH)", c.P.Karpenter.Version)
			}
		},
	},
	{
		ID: "version/supported", Severity: diag.Error, Group: "Versions",
		Summary: "The Karpenter version is a v1 minor karpgen has facts for (1.0 to the newest); older versions get the migration path.",
		check: func(c *Context) {
			v := c.Version
			if c.E.VersionErr != nil || c.Minor != nil {
				return
			}
			oldest, newest := facts.Oldest().Minor, facts.Newest().Minor
			if v.Major == 0 {
				c.Report("karpenter.version",
					"upgrade in steps: the latest patch of 0.33-0.37 (e.g. 0.37.7) with webhooks on, then 1.0.x with its conversion webhooks, migrate the manifests to v1 (check status.storedVersions is [v1]), then 1.1 or later",
					"Karpenter %s uses the v1beta1 APIs; karpgen generates the v1 APIs of Karpenter %s to %s", v, oldest, newest)
				return
			}
			c.Report("karpenter.version", fmt.Sprintf("use a version from %s.0 to the latest %s patch", oldest, newest),
				"Karpenter %s is not a version karpgen knows (supported: %s to %s)", v, oldest, newest)
		},
	},
	{
		ID: "version/kubernetes", Severity: diag.Error, Group: "Versions",
		Summary: "The Karpenter version supports the cluster's Kubernetes version (compatibility matrix).",
		check: func(c *Context) {
			rng, ok := c.E.KubernetesRange()
			if !ok {
				return
			}
			k := c.P.Cluster.KubernetesVersion
			if facts.MinorLess(k, rng[0]) || facts.MinorLess(rng[1], k) {
				hint := fmt.Sprintf("use Kubernetes %s to %s with this version", rng[0], rng[1])
				if need := minKarpenterFor(k); need != "" && facts.MinorLess(rng[1], k) {
					hint = fmt.Sprintf("Kubernetes %s needs Karpenter %s or later", k, need)
				}
				c.Report("cluster.kubernetesVersion", hint, "Karpenter %s supports Kubernetes %s to %s, not %s", c.Version, rng[0], rng[1], k)
			}
		},
	},
	{
		ID: "version/feature-gate", Severity: diag.Error, Group: "Versions",
		Summary: "Every feature gate and AWS feature gate (1.15+) exists in the chart of that version (the v1beta1 `drift` gate is gone).",
		check: func(c *Context) {
			if c.Minor == nil {
				return
			}
			known := map[string]bool{}
			var list []string
			for _, g := range c.Minor.FeatureGates {
				known[g.Name] = true
				list = append(list, g.Name)
			}
			for _, g := range names(c.P.Karpenter.FeatureGates) {
				if known[g] {
					continue
				}
				hint := "known gates: " + quoteList(list)
				if strings.EqualFold(g, "drift") {
					hint = "drift is always on since v1: remove the gate; limit it with disruption budgets whose reasons name Drifted"
				} else if s := closest(g, list); s != "" {
					hint = fmt.Sprintf("did you mean %q?", s)
				}
				c.Report(at("karpenter.featureGates", field(g)), hint, "feature gate %q does not exist in Karpenter %s", g, c.Minor.Minor)
			}
			checkAWSGates(c)
		},
	},
	{
		ID: "version/setting", Severity: diag.Error, Group: "Versions",
		Summary: "Every chart setting exists in the chart of that version (zonalShift: 1.12+), has its default's type and one of the values the controller accepts; settings karpgen derives are not set by hand.",
		check:   checkSettings,
	},
	{
		ID: "version/feature", Severity: diag.Error, Group: "Versions",
		Summary: "A field the profile sets exists in its Karpenter minor (the facts table says which minor each arrives in).",
		check: func(c *Context) {
			if c.Minor == nil {
				return
			}
			for _, f := range facts.Features {
				if c.Minor.Has(f) {
					continue
				}
				for _, path := range c.used(f.Path) {
					c.Report(path, fmt.Sprintf("move to Karpenter %s or later, or drop the field", f.Since),
						"%s arrives in Karpenter %s; the profile runs %s", path, f.Since, c.Version)
				}
			}
		},
	},
}
