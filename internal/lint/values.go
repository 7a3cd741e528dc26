package lint

import (
	"slices"
	"strconv"
	"strings"

	"github.com/robfig/cron/v3"

	"github.com/karpgen/karpgen/internal/facts"
	"github.com/karpgen/karpgen/internal/facts/kubelet"
	"github.com/karpgen/karpgen/internal/profile"
)

func (c *Context) checkAlias(base, alias, family string) {
	fam, ver, ok := strings.Cut(alias, "@")
	path := at(base, "alias")
	switch {
	case !ok || fam == "" || ver == "":
		c.Report(path, `write family@version, e.g. "al2023@latest" or "al2023@v20250116"`, "AMI alias %q is not family@version", alias)
	case !slices.Contains(c.Minor.AMIFamilies, fam):
		hint := "families: " + quoteList(c.Minor.AMIFamilies)
		if fam == "ubuntu" {
			hint = "Ubuntu was removed in v1: use al2023, or ami.family \"Custom\" with AMI ids"
		}
		if since := facts.Arrival.AMIFamilies[fam]; since != "" {
			c.Report(path, hint, "AMI alias family %q arrives in Karpenter %s; the profile runs %s", fam, since, c.Version)
			return
		}
		c.Report(path, hint, "AMI alias family %q is not supported by Karpenter %s", fam, c.Minor.Minor)
	case strings.HasPrefix(fam, "windows") && ver != "latest":
		c.Report(path, `use "`+fam+`@latest"`, "Windows AMI aliases take only the version \"latest\", not %q", ver)
	case !aliasVersionRE().MatchString(ver):
		c.Report(path, `use "latest" or a release tag such as "v20250116"`, "AMI alias version %q is not \"latest\" or a release tag", ver)
	}
	if family != "" && family != "Custom" && ok && !strings.EqualFold(strings.ReplaceAll(family, "Windows", "windows"), fam) {
		c.Report(at(base, "family"), "drop ami.family: the alias implies it", "ami.family %q does not match the alias family %q", family, fam)
	}
}

var (
	evictionSignals = []string{"memory.available", "nodefs.available", "nodefs.inodesFree", "imagefs.available", "imagefs.inodesFree", "pid.available"}
	reservedKeys    = []string{"cpu", "memory", "ephemeral-storage", "pid"}
)

func (c *Context) checkKubelet(base string, nc profile.NodeClass) {
	k := nc.Kubelet
	for field_, m := range map[string]map[string]string{"evictionHard": k.EvictionHard, "evictionSoft": k.EvictionSoft, "evictionSoftGracePeriod": k.EvictionSoftGracePeriod} {
		for _, sig := range names(m) {
			if !slices.Contains(evictionSignals, sig) {
				c.Report(at(base, field_, field(sig)), "signals: "+quoteList(evictionSignals), "kubelet %s signal %q is not an eviction signal", field_, sig)
			}
		}
	}
	for _, sig := range names(k.EvictionSoft) {
		if _, ok := k.EvictionSoftGracePeriod[sig]; !ok {
			c.Report(at(base, "evictionSoft", field(sig)), "add the same signal to evictionSoftGracePeriod", "kubelet evictionSoft %q has no grace period", sig)
		}
	}
	for _, sig := range names(k.EvictionSoftGracePeriod) {
		if _, ok := k.EvictionSoft[sig]; !ok {
			c.Report(at(base, "evictionSoftGracePeriod", field(sig)), "add the same signal to evictionSoft, or drop the grace period", "kubelet evictionSoftGracePeriod %q has no soft eviction threshold", sig)
		}
	}
	for field_, m := range map[string]map[string]string{"systemReserved": k.SystemReserved, "kubeReserved": k.KubeReserved} {
		for _, r := range names(m) {
			switch {
			case !slices.Contains(reservedKeys, r):
				c.Report(at(base, field_, field(r)), "resources: "+quoteList(reservedKeys), "kubelet %s resource %q cannot be reserved", field_, r)
			case strings.HasPrefix(m[r], "-"):
				c.Report(at(base, field_, field(r)), `use a quantity such as "100m" or "1Gi"`, "kubelet %s %s %q is not a non-negative quantity", field_, r, m[r])
			case quantityRE().MatchString(m[r]):
				c.reservationFits(at(base, field_, field(r)), field_, r, m[r])
			case c.Minor != nil && c.Minor.OpenKubelet:
				// From 1.15 a value that is no quantity is an expression,
				// evaluated per instance type.
				if _, err := kubelet.Compile(m[r]); err != nil {
					c.Report(at(base, field_, field(r)), `give a quantity such as "1Gi", or an expression over `+kubelet.VarList()+` such as "memory_mib / 100"`,
						"kubelet %s %s %q is neither a quantity nor an expression Karpenter can evaluate: %v", field_, r, m[r], err)
				}
			default:
				c.Report(at(base, field_, field(r)), `use a quantity such as "100m" or "1Gi"`, "kubelet %s %s %q is not a non-negative quantity", field_, r, m[r])
			}
		}
	}
	if hi, lo := k.ImageGCHighThresholdPercent, k.ImageGCLowThresholdPercent; hi != nil && lo != nil && *hi <= *lo {
		c.Report(at(base, "imageGCHighThresholdPercent"), "make the high threshold greater than the low one", "kubelet imageGCHighThresholdPercent %d is not above imageGCLowThresholdPercent %d", *hi, *lo)
	}
}

func nonNegativeInt(s string) bool {
	n, err := strconv.Atoi(s)
	return err == nil && n >= 0
}

// validCron accepts what Karpenter's budgets parse: five cron fields or
// a descriptor such as "@daily" (robfig/cron's standard parser, which
// Karpenter uses).
func validCron(s string) bool {
	_, err := cron.ParseStandard(s)
	return err == nil && !strings.HasPrefix(s, "@every") && !strings.HasPrefix(s, "TZ=") && !strings.HasPrefix(s, "CRON_TZ=")
}

// checkRequirement holds one requirement of a pool or an overlay, at base,
// to the operators of the profile's version and the values each needs.
func checkRequirement(c *Context, base string, r profile.Requirement) {
	if !slices.Contains(c.Minor.RequirementOperators, r.Operator) {
		since := facts.Arrival.RequirementOperators[r.Operator]
		c.Report(at(base, "operator"), "use one of "+quoteList(c.Minor.RequirementOperators),
			"operator %q arrives in Karpenter %s; the profile runs %s", r.Operator, since, c.Version)
		return
	}
	switch r.Operator {
	case "In":
		if len(r.Values) == 0 {
			c.Report(at(base, "values"), "list at least one value, or use Exists", "requirement %q with In has no values", r.Key)
		}
		if r.MinValues != nil && len(r.Values) < *r.MinValues {
			c.Report(at(base, "minValues"), "list more values or lower minValues", "requirement %q has minValues %d but only %d values", r.Key, *r.MinValues, len(r.Values))
		}
	case "Gt", "Lt", "Gte", "Lte":
		if len(r.Values) != 1 || !nonNegativeInt(r.Values[0]) {
			c.Report(at(base, "values"), `give exactly one non-negative integer, e.g. ["2"]`, "requirement %q with %s needs exactly one non-negative integer value", r.Key, r.Operator)
		}
	case "Exists", "DoesNotExist":
		if len(r.Values) > 0 {
			c.Report(at(base, "values"), "drop the values", "requirement %q with %s takes no values", r.Key, r.Operator)
		}
	}
}
