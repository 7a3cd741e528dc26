package importer

import (
	"cmp"
	"slices"
	"strings"

	"github.com/karpgen/karpgen/internal/facts"
)

// aliasFamilies maps amiFamily to the v1 alias family.
var aliasFamilies = map[string]string{
	"AL2": "al2", "AL2023": "al2023", "Bottlerocket": "bottlerocket",
	"Windows2019": "windows2019", "Windows2022": "windows2022", "Windows2025": "windows2025",
}

// restrictedTags are tags Karpenter sets itself (or no longer uses).
var restrictedTags = []string{"karpenter.sh/managed-by", "karpenter.sh/nodepool", "karpenter.sh/nodeclaim",
	"karpenter.sh/provisioner-name", "karpenter.k8s.aws/ec2nodeclass", "eks:eks-cluster-name"}

// nodeTemplate reads a karpenter.k8s.aws/v1alpha1 AWSNodeTemplate.
func (im *importer) nodeTemplate(d node, name string) {
	spec := d.get("spec")
	nc := map[string]any{}
	im.from(nc, "", d.get("metadata", "name"))
	setTerms(nc, "subnetSelectorTerms", legacySelector(spec.get("subnetSelector")))
	setTerms(nc, "securityGroupSelectorTerms", legacySelector(spec.get("securityGroupSelector")))
	im.from(nc, "subnetSelectorTerms", spec.get("subnetSelector"))
	im.from(nc, "securityGroupSelectorTerms", spec.get("securityGroupSelector"))
	im.from(nc, "ami", spec.get("amiFamily"))
	im.from(nc, "ami", spec.get("amiSelector"))
	family := spec.get("amiFamily").str()
	if sel := spec.get("amiSelector"); sel.ok() {
		ami := map[string]any{}
		for _, k := range sel.keys() {
			v := sel.get(k).str()
			switch k {
			case "aws-ids", "aws::ids":
				ami["ids"] = splitList(v)
			case "aws::name":
				ami["names"] = splitList(v)
			case "aws::owners":
				im.note("ami-owner", sel.keyPos(k), "AMI owners cannot be selected in a karpgen profile; dropped")
			default:
				tags, _ := ami["tags"].(map[string]string)
				if tags == nil {
					tags = map[string]string{}
				}
				tags[k] = v
				ami["tags"] = tags
			}
		}
		ami["family"] = orString(family, "AL2")
		nc["ami"] = ami
	} else {
		nc["ami"] = im.familyAlias(spec, family)
	}
	if ip := spec.get("instanceProfile").str(); ip != "" {
		nc["instanceProfile"] = ip
		im.from(nc, "instanceProfile", spec.get("instanceProfile"))
	}
	im.inventedNote(spec, nc, name)
	im.classCommon(spec, nc, true)
	if lt := spec.get("launchTemplate"); lt.ok() {
		im.note("launch-template", spec.keyPos("launchTemplate"), "launch templates are not supported in v1; dropped: move their settings to the node class")
	}
	im.classes[name] = nc
}

// nodeClass reads a karpenter.k8s.aws v1beta1 or v1 EC2NodeClass.
func (im *importer) nodeClass(d node, name string, beta bool) {
	spec := d.get("spec")
	nc := map[string]any{}
	im.from(nc, "", d.get("metadata", "name"))
	setTerms(nc, "subnetSelectorTerms", im.terms(spec.get("subnetSelectorTerms")))
	setTerms(nc, "securityGroupSelectorTerms", im.terms(spec.get("securityGroupSelectorTerms")))
	for _, k := range []string{"subnetSelectorTerms", "securityGroupSelectorTerms", "capacityReservationSelectorTerms", "role", "instanceProfile",
		"kubelet", "associatePublicIPAddress", "instanceStorePolicy", "amiFamily", "amiSelectorTerms"} {
		field := map[string]string{"amiFamily": "ami", "amiSelectorTerms": "ami"}[k]
		im.from(nc, cmp.Or(field, k), spec.get(k))
	}
	var reservations []any
	for _, t := range spec.get("capacityReservationSelectorTerms").list() {
		term := map[string]any{}
		for _, k := range []string{"id", "ownerID", "instanceMatchCriteria"} {
			if v := t.get(k).str(); v != "" {
				term[k] = v
			}
		}
		if tags := t.get("tags").stringMap(); len(tags) > 0 {
			term["tags"] = tags
		}
		reservations = append(reservations, term)
	}
	if len(reservations) > 0 {
		nc["capacityReservationSelectorTerms"] = reservations
	}
	family := spec.get("amiFamily").str()
	terms := spec.get("amiSelectorTerms").list()
	ami := map[string]any{}
	for _, t := range terms {
		switch {
		case t.get("alias").ok():
			ami["alias"] = t.get("alias").str()
		case t.get("id").ok():
			ami["ids"] = append(asStrings(ami["ids"]), t.get("id").str())
		case t.get("name").ok():
			ami["names"] = append(asStrings(ami["names"]), t.get("name").str())
			if t.get("owner").ok() {
				im.note("ami-owner", t.keyPos("owner"), "AMI owner %q cannot be selected in a karpgen profile; dropped", t.get("owner").str())
			}
		case t.get("tags").ok():
			ami["tags"] = t.get("tags").stringMap()
		case t.get("ssmParameter").ok():
			ami["ssmParameter"] = t.get("ssmParameter").str()
		}
	}
	switch {
	case len(terms) == 0:
		ami = im.familyAlias(spec, family)
	case ami["alias"] == nil:
		ami["family"] = orString(family, "Custom")
	}
	nc["ami"] = ami
	if r := spec.get("role").str(); r != "" {
		// Karpenter takes a role ARN and uses its name: so does import.
		if m := roleARN.FindStringSubmatch(r); m != nil {
			name := m[3][strings.LastIndex(m[3], "/")+1:]
			im.note("role-arn", spec.get("role").pos(), "role %s is an ARN: the profile names the role, %s, as Karpenter uses it", r, name)
			r = name
		}
		nc["role"] = r
		if _, seen := im.nodeRoles[r]; !seen {
			im.nodeRoles[r] = spec.get("role").pos()
		}
	}
	if ip := spec.get("instanceProfile").str(); ip != "" {
		nc["instanceProfile"] = ip
	}
	im.inventedNote(spec, nc, name)
	im.classCommon(spec, nc, beta)
	if k := spec.get("kubelet"); k.ok() {
		nc["kubelet"] = k.plain()
	}
	if v := spec.get("associatePublicIPAddress"); v.ok() {
		b, _ := v.boolean()
		nc["associatePublicIPAddress"] = b
	}
	if v := spec.get("instanceStorePolicy").str(); v != "" {
		nc["instanceStorePolicy"] = v
	}
	// The fields later minors add under the same name in the profile
	// (ipPrefixCount, networkInterfaces, cpuOptions, enclaveOptions…), as
	// the features table lists them.
	for _, f := range facts.Features {
		if f.Kind != "EC2NodeClass" || f.Path != "nodeClasses.*."+f.CRDPath {
			continue
		}
		if _, set := nc[f.CRDPath]; !set && spec.get(f.CRDPath).ok() {
			nc[f.CRDPath] = spec.get(f.CRDPath).plain()
		}
	}
	im.classes[name] = nc
}

// familyAlias turns an amiFamily without AMI selectors into an alias.
func (im *importer) familyAlias(spec node, family string) map[string]any {
	if family == "" {
		family = "AL2"
		im.note("ami-family", spec.pos(), "no amiFamily: AL2 was the default before v1; al2@latest selects the same AMIs")
	}
	if alias, ok := aliasFamilies[family]; ok {
		return map[string]any{"alias": alias + "@latest"}
	}
	// Another operating system: every node of the class is replaced, and
	// user data written for the old one runs on the new one.
	if family == "Ubuntu" {
		im.warn("ami-family", spec.keyPos("amiFamily"), "amiFamily Ubuntu was removed in v1: switched to al2023@latest, so the class's nodes run Amazon Linux 2023 (its userData too) and every one is replaced on the first sync; to keep Ubuntu use amiFamily Custom with AMI ids and your own userData")
	} else {
		im.warn("ami-family", spec.keyPos("amiFamily"), "amiFamily %s has no v1 alias: switched to al2023@latest, so the class's nodes run Amazon Linux 2023 (its userData too) and every one is replaced on the first sync", family)
	}
	return map[string]any{"alias": "al2023@latest"}
}

// classCommon reads what the node class generations share.
func (im *importer) classCommon(spec node, nc map[string]any, hopLimitWas2 bool) {
	for k, field := range map[string]string{"blockDeviceMappings": "blockDevices", "metadataOptions": "metadataOptions", "userData": "userData",
		"detailedMonitoring": "detailedMonitoring", "tags": "tags"} {
		im.from(nc, field, spec.get(k))
	}
	if bd := spec.get("blockDeviceMappings"); bd.ok() {
		var out []any
		for _, m := range bd.list() {
			dev := map[string]any{"deviceName": m.get("deviceName").str()}
			ebs := m.get("ebs")
			for _, k := range []string{"volumeSize", "volumeType", "kmsKeyID", "snapshotID"} {
				if v := ebs.get(k).str(); v != "" {
					dev[k] = v
				}
			}
			for _, k := range []string{"iops", "throughput"} {
				if v, ok := ebs.get(k).integer(); ok {
					dev[k] = v
				}
			}
			for _, k := range []string{"encrypted", "deleteOnTermination"} {
				if v, ok := ebs.get(k).boolean(); ok {
					dev[k] = v
				} else if ebs.ok() {
					// The profile's default (true) is written where the
					// input left the field to EC2: the node class's hash
					// sees it, so its nodes drift on the first sync.
					im.warn("drift", ebs.pos(), "blockDeviceMappings %s: %s was unset; the profile makes it true, which changes the node class's drift hash and replaces its nodes on the first sync: set %s: false in the profile to keep them",
						m.get("deviceName").str(), k, k)
				}
			}
			if v, ok := m.get("rootVolume").boolean(); ok {
				dev["rootVolume"] = v
			}
			out = append(out, dev)
		}
		nc["blockDevices"] = out
	}
	meta := map[string]any{}
	mo := spec.get("metadataOptions")
	for _, k := range []string{"httpEndpoint", "httpProtocolIPv6", "httpTokens"} {
		if v := mo.get(k).str(); v != "" {
			meta[k] = v
		}
	}
	if v, ok := mo.get("httpPutResponseHopLimit").integer(); ok {
		meta["httpPutResponseHopLimit"] = v
	} else if hopLimitWas2 {
		meta["httpPutResponseHopLimit"] = 2
		im.note("hop-limit", spec.pos(), "the IMDS hop limit defaulted to 2 before v1 and defaults to 1 in v1: kept 2 so that pods still reach instance metadata")
	}
	if len(meta) > 0 {
		nc["metadataOptions"] = meta
		im.fromKeys(meta, mo)
	}
	if ud := spec.get("userData").str(); ud != "" {
		if strings.HasSuffix(ud, "\n") {
			// The rendered EC2NodeClass ends userData without its final
			// newline (kustomize drops it from the last block scalar, so
			// the committed file must too): the drift hash sees that.
			im.warn("drift", spec.get("userData").pos(), "userData ends with a newline, which the rendered node class drops (as kustomize does): this changes the node class's drift hash and replaces its nodes on the first sync")
		}
		nc["userData"] = ud
	}
	if v, ok := spec.get("detailedMonitoring").boolean(); ok {
		nc["detailedMonitoring"] = v
	}
	if tags := spec.get("tags"); tags.ok() {
		kept := map[string]string{}
		for _, k := range tags.keys() {
			if slices.Contains(restrictedTags, k) || strings.HasPrefix(k, "kubernetes.io/cluster") {
				im.note("tag", tags.keyPos(k), "tag %s is set by Karpenter in v1 (or no longer used); dropped", k)
				continue
			}
			kept[k] = tags.get(k).str()
		}
		if len(kept) > 0 {
			nc["tags"] = kept
		}
	}
	if c := spec.get("context"); c.ok() {
		im.note("context", spec.keyPos("context"), "context is not supported by karpgen profiles; dropped")
	}
}

// terms reads v1beta1/v1 selector terms.
func (im *importer) terms(list node) []any {
	var out []any
	for _, t := range list.list() {
		o := map[string]any{}
		if tags := t.get("tags"); tags.ok() {
			o["tags"] = tags.stringMap()
		}
		for _, k := range []string{"id", "name"} {
			if v := t.get(k).str(); v != "" {
				o[k] = v
			}
		}
		out = append(out, o)
	}
	return out
}

// legacySelector reads a v1alpha1 selector map ("aws-ids" lists ids).
func legacySelector(sel node) []any {
	var out []any
	tags := map[string]string{}
	for _, k := range sel.keys() {
		v := sel.get(k).str()
		if k == "aws-ids" || k == "aws::ids" {
			for _, id := range splitList(v) {
				out = append(out, map[string]any{"id": id})
			}
			continue
		}
		tags[k] = v
	}
	if len(tags) > 0 {
		out = append(out, map[string]any{"tags": tags})
	}
	return out
}

func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

func asStrings(v any) []string {
	s, _ := v.([]string)
	return s
}

func orString(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// setTerms sets selector terms the source has; without any, the profile's
// discovery-tag default applies.
// inventedNote says what the profile fills in for a node class that the
// input leaves without it: nothing is invented silently.
func (im *importer) inventedNote(spec node, nc map[string]any, name string) {
	if _, ok := nc["role"]; !ok && nc["instanceProfile"] == nil {
		im.note("default-role", spec.pos(), "node class %q names no role: the profile's node role (KarpenterNodeRole-<cluster>, or karpenter.nodeRole) is used", name)
	}
	for _, k := range []string{"subnetSelectorTerms", "securityGroupSelectorTerms"} {
		if _, ok := nc[k]; !ok {
			im.note("default-selector", spec.pos(), "node class %q has no %s: the profile selects by the discovery tag karpenter.sh/discovery: <cluster>", name, k)
		}
	}
}

func setTerms(nc map[string]any, key string, terms []any) {
	if len(terms) > 0 {
		nc[key] = terms
	}
}
