package importer

import (
	"cmp"
	"reflect"
	"slices"
	"strings"

	"github.com/karpgen/karpgen/internal/facts"
	"github.com/karpgen/karpgen/internal/model"
	"github.com/karpgen/karpgen/internal/profile/form"
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
	nc := &form.NodeClass{}
	at := im.at("nodeClasses", name)
	at.from(d.get("metadata", "name"))
	nc.SubnetSelectorTerms = subnets(legacySelector(spec.get("subnetSelector")))
	nc.SecurityGroupSelectorTerms = legacySelector(spec.get("securityGroupSelector"))
	at.from(spec.get("subnetSelector"), "subnetSelectorTerms")
	at.from(spec.get("securityGroupSelector"), "securityGroupSelectorTerms")
	at.from(spec.get("amiFamily"), "ami")
	at.from(spec.get("amiSelector"), "ami")
	family := spec.get("amiFamily").str()
	if sel := spec.get("amiSelector"); sel.ok() {
		ami := &form.NodeClassAMI{}
		for _, k := range sel.keys() {
			v := sel.get(k).str()
			switch k {
			case "aws-ids", "aws::ids":
				ami.IDs = splitList(v)
			case "aws::name":
				ami.Names = splitList(v)
			case "aws::owners":
				im.note("ami-owner", sel.keyPos(k), "AMI owners cannot be selected in a karpgen profile; dropped")
			default:
				if ami.Tags == nil {
					ami.Tags = map[string]string{}
				}
				ami.Tags[k] = v
			}
		}
		ami.Family = orString(family, "AL2")
		nc.AMI = ami
	} else {
		nc.AMI = im.familyAlias(spec, family)
	}
	if ip := spec.get("instanceProfile").str(); ip != "" {
		nc.InstanceProfile = ip
		at.from(spec.get("instanceProfile"), "instanceProfile")
	}
	im.inventedNote(spec, nc, name)
	im.classCommon(spec, nc, at, true)
	if lt := spec.get("launchTemplate"); lt.ok() {
		im.note("launch-template", spec.keyPos("launchTemplate"), "launch templates are not supported in v1; dropped: move their settings to the node class")
	}
	im.classes[name] = nc
}

// nodeClass reads a karpenter.k8s.aws v1beta1 or v1 EC2NodeClass.
func (im *importer) nodeClass(d node, name string, beta bool) {
	spec := d.get("spec")
	nc := &form.NodeClass{}
	at := im.at("nodeClasses", name)
	at.from(d.get("metadata", "name"))
	nc.SubnetSelectorTerms = im.subnetTerms(spec.get("subnetSelectorTerms"))
	nc.SecurityGroupSelectorTerms = terms(spec.get("securityGroupSelectorTerms"))
	for _, k := range []string{"subnetSelectorTerms", "securityGroupSelectorTerms", "capacityReservationSelectorTerms", "role", "instanceProfile",
		"kubelet", "associatePublicIPAddress", "instanceStorePolicy", "amiFamily", "amiSelectorTerms"} {
		field := map[string]string{"amiFamily": "ami", "amiSelectorTerms": "ami"}[k]
		at.from(spec.get(k), cmp.Or(field, k))
	}
	for _, t := range spec.get("capacityReservationSelectorTerms").list() {
		term := form.CapacityReservationTerm{ID: t.get("id").str(), OwnerID: t.get("ownerID").str(), InstanceMatchCriteria: t.get("instanceMatchCriteria").str()}
		if tags := t.get("tags").stringMap(); len(tags) > 0 {
			term.Tags = tags
		}
		nc.CapacityReservationSelectorTerms = append(nc.CapacityReservationSelectorTerms, term)
	}
	family := spec.get("amiFamily").str()
	terms := spec.get("amiSelectorTerms").list()
	ami := &form.NodeClassAMI{}
	for _, t := range terms {
		switch {
		case t.get("alias").ok():
			ami.Alias = t.get("alias").str()
		case t.get("id").ok():
			ami.IDs = append(ami.IDs, t.get("id").str())
		case t.get("name").ok():
			ami.Names = append(ami.Names, t.get("name").str())
			if t.get("owner").ok() {
				im.note("ami-owner", t.keyPos("owner"), "AMI owner %q cannot be selected in a karpgen profile; dropped", t.get("owner").str())
			}
		case t.get("tags").ok():
			ami.Tags = t.get("tags").stringMap()
		case t.get("ssmParameter").ok():
			ami.SSMParameter = t.get("ssmParameter").str()
		}
	}
	switch {
	case len(terms) == 0:
		ami = im.familyAlias(spec, family)
	case ami.Alias == "":
		ami.Family = orString(family, "Custom")
	}
	nc.AMI = ami
	if r := spec.get("role").str(); r != "" {
		// Karpenter takes a role ARN and uses its name: so does import.
		if m := roleARN().FindStringSubmatch(r); m != nil {
			name := model.RoleNameOf(m[3])
			im.note("role-arn", spec.get("role").pos(), "role %s is an ARN: the profile names the role, %s, as Karpenter uses it", r, name)
			r = name
		}
		nc.Role = r
		if _, seen := im.nodeRoles[r]; !seen {
			im.nodeRoles[r] = spec.get("role").pos()
		}
	}
	nc.InstanceProfile = spec.get("instanceProfile").str()
	im.inventedNote(spec, nc, name)
	im.classCommon(spec, nc, at, beta)
	if k := spec.get("kubelet"); k.ok() {
		nc.Kubelet = plainMap(k)
	}
	if v := spec.get("associatePublicIPAddress"); v.ok() {
		b, _ := v.boolean()
		nc.AssociatePublicIPAddress = &b
	}
	nc.InstanceStorePolicy = spec.get("instanceStorePolicy").str()
	// The fields later minors add under the same name in the profile
	// (ipPrefixCount, networkInterfaces, cpuOptions, enclaveOptions…), as
	// the features table lists them.
	for _, f := range facts.Features {
		if f.Kind != "EC2NodeClass" || f.Path != "nodeClasses.*."+f.CRDPath {
			continue
		}
		if v := spec.get(f.CRDPath); v.ok() && !form.Has(nc, f.CRDPath) {
			field, _ := form.Field(reflect.ValueOf(nc).Elem(), f.CRDPath)
			im.fill(v, field, "node-class", f.CRDPath)
		}
	}
	im.classes[name] = nc
}

// familyAlias turns an amiFamily without AMI selectors into an alias.
func (im *importer) familyAlias(spec node, family string) *form.NodeClassAMI {
	if family == "" {
		family = "AL2"
		im.note("ami-family", spec.pos(), "no amiFamily: AL2 was the default before v1; al2@latest selects the same AMIs")
	}
	if alias, ok := aliasFamilies[family]; ok {
		return &form.NodeClassAMI{Alias: alias + "@latest"}
	}
	// Another operating system: every node of the class is replaced, and
	// user data written for the old one runs on the new one.
	if family == "Ubuntu" {
		im.warn("ami-family", spec.keyPos("amiFamily"), "amiFamily Ubuntu was removed in v1: switched to al2023@latest, so the class's nodes run Amazon Linux 2023 (its userData too) and every one is replaced on the first sync; to keep Ubuntu use amiFamily Custom with AMI ids and your own userData")
	} else {
		im.warn("ami-family", spec.keyPos("amiFamily"), "amiFamily %s has no v1 alias: switched to al2023@latest, so the class's nodes run Amazon Linux 2023 (its userData too) and every one is replaced on the first sync", family)
	}
	return &form.NodeClassAMI{Alias: "al2023@latest"}
}

// classCommon reads what the node class generations share.
func (im *importer) classCommon(spec node, nc *form.NodeClass, at place, hopLimitWas2 bool) {
	for k, field := range map[string]string{"blockDeviceMappings": "blockDevices", "metadataOptions": "metadataOptions", "userData": "userData",
		"detailedMonitoring": "detailedMonitoring", "tags": "tags"} {
		at.from(spec.get(k), field)
	}
	if bd := spec.get("blockDeviceMappings"); bd.ok() {
		nc.BlockDevices = []form.BlockDevice{}
		for _, m := range bd.list() {
			ebs := m.get("ebs")
			dev := form.BlockDevice{DeviceName: m.get("deviceName").str(), VolumeSize: ebs.get("volumeSize").str(), VolumeType: ebs.get("volumeType").str(),
				KMSKeyID: ebs.get("kmsKeyID").str(), SnapshotID: ebs.get("snapshotID").str()}
			dev.IOPS = intOf(ebs.get("iops"))
			dev.Throughput = intOf(ebs.get("throughput"))
			dev.VolumeInitializationRate = intOf(ebs.get("volumeInitializationRate"))
			for _, f := range []struct {
				k     string
				field **bool
			}{{"encrypted", &dev.Encrypted}, {"deleteOnTermination", &dev.DeleteOnTermination}} {
				k := f.k
				if v, ok := ebs.get(k).boolean(); ok {
					*f.field = &v
				} else if ebs.ok() {
					// The profile's default (true) is written where the
					// input left the field to EC2: the node class's hash
					// sees it, so its nodes drift on the first sync.
					// Setting it false would trade the one roll for a
					// lasting regression (unencrypted volumes, volumes
					// left behind): the warning never suggests it.
					im.warn("drift", ebs.pos(), "blockDeviceMappings %s: %s was unset; the profile makes it true, which changes the node class's drift hash and replaces its nodes once, on the first sync: let the pools' budgets pace that roll, or plan it with karpgen rotate",
						m.get("deviceName").str(), k)
				}
			}
			if v, ok := m.get("rootVolume").boolean(); ok {
				dev.RootVolume = &v
			}
			nc.BlockDevices = append(nc.BlockDevices, dev)
		}
	}
	mo := spec.get("metadataOptions")
	meta := form.NodeClassMetadataOptions{HTTPEndpoint: mo.get("httpEndpoint").str(), HTTPProtocolIPv6: mo.get("httpProtocolIPv6").str(),
		HTTPTokens: mo.get("httpTokens").str(), HTTPPutResponseHopLimit: intOf(mo.get("httpPutResponseHopLimit"))}
	if meta.HTTPPutResponseHopLimit == nil && hopLimitWas2 {
		meta.HTTPPutResponseHopLimit = form.Ptr(2)
		im.note("hop-limit", spec.pos(), "the IMDS hop limit defaulted to 2 before v1 and defaults to 1 in v1: kept 2 so that pods still reach instance metadata")
	}
	if meta != (form.NodeClassMetadataOptions{}) {
		nc.MetadataOptions = &meta
		at.fromKeys(mo, "metadataOptions")
	}
	if ud := spec.get("userData").str(); ud != "" {
		if strings.HasSuffix(ud, "\n") {
			// The rendered EC2NodeClass ends userData without its final
			// newline (kustomize drops it from the last block scalar, so
			// the committed file must too): the drift hash sees that.
			im.warn("drift", spec.get("userData").pos(), "userData ends with a newline, which the rendered node class drops (as kustomize does): this changes the node class's drift hash and replaces its nodes on the first sync")
		}
		nc.UserData = ud
	}
	if v, ok := spec.get("detailedMonitoring").boolean(); ok {
		nc.DetailedMonitoring = &v
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
			nc.Tags = kept
		}
	}
	if c := spec.get("context"); c.ok() {
		im.note("context", spec.keyPos("context"), "context is not supported by karpgen profiles; dropped")
	}
}

// intOf is a whole number of the input, nil where it has none.
func intOf(n node) *int {
	if v, ok := n.integer(); ok {
		return &v
	}
	return nil
}

// terms reads v1beta1/v1 security group selector terms.
func terms(list node) []form.SecurityGroupTerm {
	var out []form.SecurityGroupTerm
	for _, t := range list.list() {
		out = append(out, form.SecurityGroupTerm{Tags: t.get("tags").stringMap(), ID: t.get("id").str(), Name: t.get("name").str()})
	}
	return out
}

// subnetTerms reads v1beta1/v1 subnet selector terms, which select by tags
// or ID: a name, which the CRD refuses, is dropped with a note.
func (im *importer) subnetTerms(list node) []form.SubnetTerm {
	var out []form.SubnetTerm
	for _, t := range list.list() {
		if name := t.get("name"); name.ok() {
			im.note("selector", t.keyPos("name"), "subnet selector terms select by tags or id, not by name: name %s dropped", name.str())
		}
		out = append(out, form.SubnetTerm{Tags: t.get("tags").stringMap(), ID: t.get("id").str()})
	}
	return out
}

// subnets are a v1alpha1 selector's terms as subnet terms.
func subnets(terms []form.SecurityGroupTerm) []form.SubnetTerm {
	var out []form.SubnetTerm
	for _, t := range terms {
		out = append(out, form.SubnetTerm{Tags: t.Tags, ID: t.ID})
	}
	return out
}

// legacySelector reads a v1alpha1 selector map ("aws-ids" lists ids).
func legacySelector(sel node) []form.SecurityGroupTerm {
	var out []form.SecurityGroupTerm
	tags := map[string]string{}
	for _, k := range sel.keys() {
		v := sel.get(k).str()
		if k == "aws-ids" || k == "aws::ids" {
			for _, id := range splitList(v) {
				out = append(out, form.SecurityGroupTerm{ID: id})
			}
			continue
		}
		tags[k] = v
	}
	if len(tags) > 0 {
		out = append(out, form.SecurityGroupTerm{Tags: tags})
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

func orString(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// inventedNote says what the profile fills in for a node class that the
// input leaves without it: nothing is invented silently.
func (im *importer) inventedNote(spec node, nc *form.NodeClass, name string) {
	if nc.Role == "" && nc.InstanceProfile == "" {
		im.note("default-role", spec.pos(), "node class %q names no role: the profile's node role (KarpenterNodeRole-<cluster>, or karpenter.nodeRole) is used", name)
	}
	if nc.SubnetSelectorTerms == nil {
		im.note("default-selector", spec.pos(), "node class %q has no subnetSelectorTerms: the profile selects by the discovery tag karpenter.sh/discovery: <cluster>", name)
	}
	if nc.SecurityGroupSelectorTerms == nil {
		im.note("default-selector", spec.pos(), "node class %q has no securityGroupSelectorTerms: the profile selects by the discovery tag karpenter.sh/discovery: <cluster>", name)
	}
}
