package lint

// catalog lists every rule, in the order they run: group by group, as
// docs/rules.md shows them.
var catalog = concat(namesRules, placeRules, versionsRules, labelsRules, refsRules, authRules, valuesRules, opsRules, gpuRules, separationRules)

func concat(groups ...[]*Rule) []*Rule {
	var out []*Rule
	for _, g := range groups {
		out = append(out, g...)
	}
	return out
}
