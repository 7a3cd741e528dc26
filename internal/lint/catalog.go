package lint

// catalog lists every rule, in the order they run.
var catalog = concat(nameRules, textRules, placeRules, versionRules, labelRules, refRules, authRules, valueRules, selectorRules, amiRules, identityRules, featureRules, gpuRules, separationRules, budgetRules, opsRules, podRules, guardrailRules)

func concat(groups ...[]*Rule) []*Rule {
	var out []*Rule
	for _, g := range groups {
		out = append(out, g...)
	}
	return out
}
