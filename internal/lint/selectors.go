package lint

import (
	"regexp"
	"strings"

	"github.com/karpgen/karpgen/internal/profile"
	"github.com/karpgen/karpgen/internal/util/lazyre"
)

// The EC2NodeClass CRD's rules on subnet and security group selector
// terms (the same in every v1 minor).
const (
	maxSelectorTerms = 30
	maxSelectorTags  = 20
)

var (
	subnetIDRE        = lazyre.New(`^subnet-[0-9a-z]+$`)
	securityGroupIDRE = lazyre.New(`^sg-[0-9a-z]+$`)
)

func (c *Context) checkTerms(path, what string, terms []profile.SelectorTerm, idRE *regexp.Regexp, byName bool) {
	switch {
	case len(terms) == 0:
		c.Report(path, "leave the field out to select by the discovery tag, or give at least one term",
			"%s selector terms are empty: no %s would be selected", what, what)
		return
	case len(terms) > maxSelectorTerms:
		c.Report(path, "", "%d %s selector terms; the CRD allows %d", len(terms), what, maxSelectorTerms)
	}
	for i, t := range terms {
		p := at(path, i)
		set := 0
		for _, ok := range []bool{len(t.Tags) > 0, t.ID != "", t.Name != ""} {
			if ok {
				set++
			}
		}
		switch {
		case set == 0 && t.Tags != nil:
			c.Report(at(p, "tags"), "give at least one tag", "%s selector term %d has empty tags", what, i)
		case set == 0 && byName:
			c.Report(p, "", "%s selector term %d is empty: give tags, an id or a name", what, i)
		case set == 0:
			c.Report(p, "", "%s selector term %d is empty: give tags or an id", what, i)
		case t.ID != "" && set > 1:
			c.Report(at(p, "id"), "move the id to a term of its own: terms are ORed",
				"%s selector term %d sets id with other fields; the CRD refuses that (an id term selects exactly one %s)", what, i, what)
		case byName && t.Name != "" && set > 1:
			c.Report(at(p, "name"), "move the name to a term of its own: terms are ORed",
				"%s selector term %d sets name with other fields; the CRD refuses that", what, i)
		}
		if t.ID != "" && !idRE.MatchString(t.ID) {
			c.Report(at(p, "id"), "", "%q is not a %s id (%s)", t.ID, what, strings.Trim(idRE.String(), "^$"))
		}
		if len(t.Tags) > maxSelectorTags {
			c.Report(at(p, "tags"), "", "%s selector term %d has %d tags; the CRD allows %d", what, i, len(t.Tags), maxSelectorTags)
		}
		for _, k := range names(t.Tags) {
			tag := at(p, "tags")
			if k != "" {
				tag = at(tag, field(k))
			}
			if k == "" || t.Tags[k] == "" {
				c.Report(tag, "give the tag a key and a value (\"*\" matches any value)",
					"%s selector term %d has an empty tag key or value, which the CRD refuses", what, i)
			}
		}
	}
}
