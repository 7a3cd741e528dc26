package lint

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/karpgen/karpgen/internal/facts"
)

// checkSettings holds karpenter.zonalShift and karpenter.settings to the
// chart of the profile's version.
func checkSettings(c *Context) {
	if c.Minor == nil {
		return
	}
	k := c.P.Karpenter
	if k.ZonalShift != nil && !c.Minor.HasSetting("enableZonalShift") {
		since := facts.SettingSince("enableZonalShift")
		c.Report("karpenter.zonalShift", "remove it or use Karpenter "+since+" or later",
			"karpenter.zonalShift arrives in Karpenter %s; the %s chart has no settings.enableZonalShift", since, c.Minor.Minor)
	}
	if len(k.Settings) == 0 {
		return
	}
	chart := facts.Settings(c.Minor.Minor)
	for _, name := range names(k.Settings) {
		path := at("karpenter.settings", field(name))
		if from, ok := facts.DerivedSettings[name]; ok {
			c.Report(path, "remove it; set "+from+" instead",
				"settings.%s is derived by karpgen from %s", name, from)
			continue
		}
		def, ok := chart[name]
		if !ok {
			if since := facts.SettingSince(name); since != "" && facts.MinorLess(c.Minor.Minor, since) {
				c.Report(path, fmt.Sprintf("remove it or use Karpenter %s or later", since),
					"settings.%s arrives in Karpenter %s; the %s chart has no such setting", name, since, c.Minor.Minor)
				continue
			}
			hint := "settings of this chart: " + quoteList(slices.Sorted(maps.Keys(chart)))
			if s := closest(name, slices.Sorted(maps.Keys(chart))); s != "" {
				hint = fmt.Sprintf("did you mean %q?", s)
			}
			c.Report(path, hint, "settings.%s is not a setting of the Karpenter %s chart", name, c.Minor.Minor)
			continue
		}
		v := k.Settings[name]
		since, always := facts.AlwaysRendered[name]
		always = always && !facts.MinorLess(c.Minor.Minor, since)
		if problem, hint := settingProblem(def, v, always); problem != "" {
			c.Report(path, hint, "settings.%s: %s", name, problem)
			continue
		}
		if allowed := facts.SettingValues[name]; allowed != nil && !slices.Contains(allowed, fmt.Sprint(v)) {
			hint := "one of " + quoteList(allowed)
			if s := closest(fmt.Sprint(v), allowed); s != "" {
				hint = fmt.Sprintf("did you mean %q?", s)
			}
			c.Report(path, hint, "settings.%s: %q is not a value Karpenter accepts", name, fmt.Sprint(v))
		}
	}
	checkConflicts(c)
}

// checkConflicts reports the settings the chart refuses together.
func checkConflicts(c *Context) {
	k := c.P.Karpenter
	set := map[string]any{}
	for name, v := range k.Settings {
		set["settings."+name] = v
	}
	for name, v := range k.FeatureGates {
		set["settings.featureGates."+name] = v
	}
	for name, v := range k.AWSFeatureGates {
		set["settings.awsFeatureGates."+name] = v
	}
	for _, cf := range facts.SettingConflicts {
		if set[cf.Setting] != true {
			continue
		}
		for _, other := range cf.With {
			v, ok := set[other]
			if !ok || cf.WithTrue && v != true {
				continue
			}
			c.Report(profilePath(other), "remove one of them",
				"%s cannot be combined with %s: %s (the chart refuses to render)", other, cf.Setting, cf.Why)
		}
	}
}

// profilePath is where a chart key is set in the profile.
func profilePath(key string) string {
	rest := strings.TrimPrefix(key, "settings.")
	for _, m := range []string{"featureGates", "awsFeatureGates"} {
		if name, ok := strings.CutPrefix(rest, m+"."); ok {
			return at("karpenter."+m, field(name))
		}
	}
	return at("karpenter.settings", field(rest))
}

// settingProblem checks a value against the shape of the chart's
// default: the chart passes each setting through `tpl (toString .)` into
// the controller's environment (and, unless the chart writes it always,
// leaves out a false, 0 or empty value), so the string must be what the
// controller parses, and must not be a template.
func settingProblem(def string, v any, alwaysRendered bool) (problem, hint string) {
	var d any
	if json.Unmarshal([]byte(def), &d) != nil {
		d = def
	}
	want, got := valueKind(d), valueKind(v)
	text := fmt.Sprint(v)
	defHint := fmt.Sprintf("the chart's default is %s", def)
	if (want == "bool" || got == "bool" || want == "number") && want != got {
		return fmt.Sprintf("must be a %s, not %s", want, jsonText(v)), defHint
	}
	if templateEmpty(v) && !templateEmpty(d) && !alwaysRendered {
		return fmt.Sprintf("%s does not reach the controller: the chart leaves out a setting that is false, 0 or empty, and the controller falls back to its built-in default", jsonText(v)),
			"remove it, or give a value the chart passes on"
	}
	if strings.Contains(text, "{{") {
		return fmt.Sprintf("%q holds a template; the chart would evaluate it", text), "write the value itself"
	}
	if i := strings.IndexFunc(text, unsafeInQuotes); i >= 0 {
		return fmt.Sprintf("%q holds %q, which the chart writes unescaped inside a quoted YAML string (it could end the string and add to the controller's manifest)", text, text[i:i+1]),
			"remove the quote, backslash or control character"
	}
	ds, _ := d.(string)
	if _, err := time.ParseDuration(ds); err == nil && strings.ContainsAny(ds, "hms") {
		if x, err := time.ParseDuration(text); err != nil || x <= 0 {
			return fmt.Sprintf("%q is not a positive duration", text), fmt.Sprintf("a Go duration such as %s", ds)
		}
	} else if _, err := strconv.Atoi(ds); err == nil {
		if n, err := strconv.Atoi(text); err != nil || n < 0 {
			return fmt.Sprintf("%q is not a whole number of at least 0", text), defHint
		}
	}
	return "", ""
}

// unsafeInQuotes reports the characters that end or escape the chart's
// `value: "..."` or break its line.
func unsafeInQuotes(r rune) bool { return r == '"' || r == '\\' || r < 0x20 || r == 0x7f }

// templateEmpty reports the values a Go template's `with` skips.
func templateEmpty(v any) bool {
	switch v := v.(type) {
	case bool:
		return !v
	case string:
		return v == ""
	case nil:
		return true
	}
	f, err := strconv.ParseFloat(fmt.Sprint(v), 64)
	return err == nil && f == 0
}

func jsonText(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// valueKind names the type of a decoded scalar.
func valueKind(v any) string {
	switch v.(type) {
	case bool:
		return "bool"
	case string:
		return "string"
	default:
		return "number"
	}
}
