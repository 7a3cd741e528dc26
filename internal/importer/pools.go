package importer

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// shorthand maps requirement keys to the profile fields that say them.
var shorthand = map[string]string{
	"kubernetes.io/arch":                    "arch",
	"kubernetes.io/os":                      "os",
	"karpenter.sh/capacity-type":            "capacityTypes",
	"topology.kubernetes.io/zone":           "zones",
	"karpenter.k8s.aws/instance-category":   "instanceCategories",
	"karpenter.k8s.aws/instance-family":     "instanceFamilies",
	"karpenter.k8s.aws/instance-generation": "instanceGenerations",
	"karpenter.k8s.aws/instance-cpu":        "instanceCPU",
	"karpenter.k8s.aws/instance-size":       "instanceSizes",
	"node.kubernetes.io/instance-type":      "instanceTypes",
}

// operators are the requirement operators of any Karpenter API version.
var operators = []string{"In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt", "Gte", "Lte"}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// requirements turns requirements into shorthand fields where one says
// the same, and keeps the rest as they are.
func (im *importer) requirements(list node, pool map[string]any) {
	im.from(pool, "requirements", list)
	var rest []any
	for _, r := range list.list() {
		key, op, values := r.get("key").str(), r.get("operator").str(), r.get("values").strings()
		if key == "" || !slices.Contains(operators, op) {
			im.note("requirement", r.pos(), "requirement %s %s is not one karpgen understands (a key and one of %s); dropped", orDash(key), orDash(op), strings.Join(operators, ", "))
			continue
		}
		field, short := shorthand[key]
		_, taken := pool[field]
		minValues, hasMin := r.get("minValues").integer()
		switch {
		case short && op == "In" && !taken && !hasMin:
			if field == "instanceGenerations" || field == "instanceCPU" {
				if ints, ok := toInts(values); ok {
					pool[field] = ints
					im.from(pool, field, r)
					continue
				}
				break
			}
			pool[field] = values
			im.from(pool, field, r)
			continue
		case key == "karpenter.k8s.aws/instance-generation" && op == "Gt" && len(values) == 1 && pool["instanceGenerationAbove"] == nil:
			if g, err := strconv.Atoi(values[0]); err == nil {
				pool["instanceGenerationAbove"] = g
				im.from(pool, "instanceGenerationAbove", r)
				continue
			}
		}
		req := map[string]any{"key": key, "operator": op}
		if len(values) > 0 {
			req["values"] = values
		}
		if hasMin {
			req["minValues"] = minValues
		}
		im.from(req, "", r)
		rest = append(rest, req)
	}
	if len(rest) > 0 {
		pool["requirements"] = rest
	}
}

// defaults states what the source left to Karpenter's defaults, so that
// the profile's own defaults do not change the meaning.
func (im *importer) defaults(pool map[string]any, src node, anyArch bool) {
	if _, ok := pool["capacityTypes"]; !ok {
		pool["capacityTypes"] = []string{"on-demand"}
		im.from(pool, "capacityTypes", src)
	}
	if _, ok := pool["arch"]; !ok && anyArch {
		pool["arch"] = []string{"amd64", "arm64"}
		im.from(pool, "arch", src)
		im.note("arch", src.pos(), "no kubernetes.io/arch requirement: both amd64 and arm64 are allowed, as before")
	}
}

// instanceKeys are the requirement keys that kept the v1alpha5 webhook
// from defaulting a Provisioner's instance categories and generation.
var instanceKeys = []string{
	"node.kubernetes.io/instance-type", "karpenter.k8s.aws/instance-family",
	"karpenter.k8s.aws/instance-category", "karpenter.k8s.aws/instance-generation",
}

// alphaInstanceDefaults states what the v1alpha5 webhook added to a
// Provisioner that required no instance type, family, category or
// generation (the provider's Provisioner.SetDefaults): categories c, m
// and r of a generation above 2. v1 has no such default, so without it
// the pool would launch every type, GPUs and bursting ones included.
func (im *importer) alphaInstanceDefaults(spec node, pool map[string]any) {
	reqs := spec.get("requirements")
	if !reqs.ok() {
		reqs = spec
	}
	for _, r := range reqs.list() {
		if slices.Contains(instanceKeys, r.get("key").str()) {
			return
		}
	}
	pool["instanceCategories"] = []string{"c", "m", "r"}
	pool["instanceGenerationAbove"] = 2
	im.from(pool, "instanceCategories", reqs)
	im.from(pool, "instanceGenerationAbove", reqs)
	im.note("alpha-defaults", reqs.pos(), "no instance type, family, category or generation requirement: the v1alpha5 webhook defaulted categories c, m and r of generation 3 and later, which v1 does not; kept, so that the pool launches the types it did")
}

func toInts(values []string) ([]int, bool) {
	out := make([]int, len(values))
	for i, v := range values {
		n, err := strconv.Atoi(v)
		if err != nil {
			return nil, false
		}
		out[i] = n
	}
	return out, true
}

func taints(list node) []any {
	var out []any
	for _, t := range list.list() {
		o := map[string]any{"key": t.get("key").str(), "effect": t.get("effect").str()}
		if v := t.get("value"); v.ok() && v.str() != "" {
			o["value"] = v.str()
		}
		out = append(out, o)
	}
	return out
}

// seconds turns a count of seconds into a duration, in the largest whole unit.
func seconds(n node) (string, bool) {
	s, ok := n.integer()
	switch {
	case !ok:
		return "", false
	case s > 0 && s%3600 == 0:
		return fmt.Sprintf("%dh", s/3600), true
	case s > 0 && s%60 == 0:
		return fmt.Sprintf("%dm", s/60), true
	}
	return fmt.Sprintf("%ds", s), true
}

// provisioner reads a karpenter.sh/v1alpha5 Provisioner.
func (im *importer) provisioner(d node, name string) {
	spec := d.get("spec")
	pool := map[string]any{}
	im.from(pool, "", d.get("metadata", "name"))
	im.requirements(spec.get("requirements"), pool)
	// The v1alpha5 webhook defaulted the architecture to amd64.
	if _, ok := pool["arch"]; !ok {
		pool["arch"] = []string{"amd64"}
		im.from(pool, "arch", spec)
	}
	im.defaults(pool, spec, false)
	im.alphaInstanceDefaults(spec, pool)
	im.common(spec, pool)
	if l := spec.get("limits", "resources"); l.ok() {
		pool["limits"] = l.plain()
		im.fromKeys(pool["limits"], l)
	}

	empty, hasEmpty := seconds(spec.get("ttlSecondsAfterEmpty"))
	consolidate, _ := spec.get("consolidation", "enabled").boolean()
	im.from(pool, "disruption", spec)
	switch {
	case consolidate:
		pool["disruption"] = map[string]any{"consolidationPolicy": "WhenEmptyOrUnderutilized", "consolidateAfter": "0s"}
		im.from(pool, "disruption", spec.get("consolidation"))
		im.note("consolidation", spec.keyPos("consolidation"), "consolidation.enabled became consolidationPolicy WhenEmptyOrUnderutilized with consolidateAfter 0s")
	case hasEmpty:
		pool["disruption"] = map[string]any{"consolidationPolicy": "WhenEmpty", "consolidateAfter": empty}
		im.from(pool, "disruption", spec.get("ttlSecondsAfterEmpty"))
		im.note("consolidation", spec.keyPos("ttlSecondsAfterEmpty"), "ttlSecondsAfterEmpty became consolidationPolicy WhenEmpty with consolidateAfter %s", empty)
	default:
		pool["disruption"] = map[string]any{"consolidationPolicy": "WhenEmpty", "consolidateAfter": "Never"}
		im.note("consolidation", spec.pos(), "no consolidation and no ttlSecondsAfterEmpty: consolidateAfter Never keeps nodes as before")
	}
	if exp, ok := seconds(spec.get("ttlSecondsUntilExpired")); ok {
		pool["expireAfter"] = exp
		im.from(pool, "expireAfter", spec.get("ttlSecondsUntilExpired"))
		im.note("expiry", spec.keyPos("ttlSecondsUntilExpired"), "ttlSecondsUntilExpired became template.spec.expireAfter %s; v1 expiry no longer waits for replacement capacity or PDBs", exp)
	} else {
		pool["expireAfter"] = "Never"
	}
	switch {
	case spec.get("providerRef", "name").ok():
		pool["nodeClass"] = spec.get("providerRef", "name").str()
		im.from(pool, "nodeClass", spec.get("providerRef", "name"))
	case spec.get("provider").ok():
		// The inline block holds what an AWSNodeTemplate's spec does: it
		// becomes a node class of the pool's name.
		provider := spec.get("provider")
		wrapped := node{provider.file, &yaml.Node{Kind: yaml.MappingNode, Content: []*yaml.Node{{Kind: yaml.ScalarNode, Value: "spec"}, provider.n}}}
		if _, taken := im.classes[name]; !taken {
			im.nodeTemplate(wrapped, name)
		}
		pool["nodeClass"] = name
		im.from(pool, "nodeClass", provider)
		im.note("inline-provider", spec.keyPos("provider"), "the inline provider block became node class %q", name)
	}
	if k := spec.get("kubeletConfiguration"); k.ok() {
		im.kubelet(pool, k, name)
	}
	im.pools[name] = pool
}

// common reads what all generations share at the same place.
func (im *importer) common(spec node, pool map[string]any) {
	im.mapField(pool, "labels", spec.get("labels"))
	im.mapField(pool, "annotations", spec.get("annotations"))
	if t := taints(spec.get("taints")); len(t) > 0 {
		pool["taints"] = t
		im.from(pool, "taints", spec.get("taints"))
	}
	if t := taints(spec.get("startupTaints")); len(t) > 0 {
		pool["startupTaints"] = t
		im.from(pool, "startupTaints", spec.get("startupTaints"))
	}
	if w, ok := spec.get("weight").integer(); ok {
		pool["weight"] = w
		im.from(pool, "weight", spec.get("weight"))
	}
}

// mapField sets key of m to the string map n holds, when it is there, and
// records where each of its keys came from.
func (im *importer) mapField(m map[string]any, key string, n node) {
	if !n.ok() {
		return
	}
	v := n.stringMap()
	m[key] = v
	im.from(m, key, n)
	im.fromKeys(v, n)
}

// nodePool reads a karpenter.sh v1beta1 or v1 NodePool.
func (im *importer) nodePool(d node, name string, beta bool) {
	spec := d.get("spec")
	tmpl := spec.get("template")
	pool := map[string]any{}
	im.from(pool, "", d.get("metadata", "name"))
	im.requirements(tmpl.get("spec", "requirements"), pool)
	im.defaults(pool, tmpl.get("spec", "requirements"), true)
	im.common(tmpl.get("spec"), pool)
	im.mapField(pool, "labels", tmpl.get("metadata", "labels"))
	im.mapField(pool, "annotations", tmpl.get("metadata", "annotations"))
	if w, ok := spec.get("weight").integer(); ok {
		pool["weight"] = w
		im.from(pool, "weight", spec.get("weight"))
	}
	if l := spec.get("limits"); l.ok() {
		pool["limits"] = l.plain()
		im.from(pool, "limits", l)
		im.fromKeys(pool["limits"], l)
	}
	pool["nodeClass"] = tmpl.get("spec", "nodeClassRef", "name").str()
	im.from(pool, "nodeClass", tmpl.get("spec", "nodeClassRef"))
	if g := tmpl.get("spec", "nodeClassRef", "group").str(); g != "" && g != "karpenter.k8s.aws" {
		im.note("node-class-ref", tmpl.get("spec", "nodeClassRef").pos(), "nodeClassRef group %s is not karpenter.k8s.aws", g)
	}

	dis := spec.get("disruption")
	policy := dis.get("consolidationPolicy").str()
	after := dis.get("consolidateAfter").str()
	switch {
	case policy == "" && beta:
		policy = "WhenUnderutilized"
	case policy == "" && !beta:
		policy = "WhenEmptyOrUnderutilized"
	}
	if policy == "WhenUnderutilized" {
		policy = "WhenEmptyOrUnderutilized"
		if after == "" {
			after = "0s"
		}
		im.note("consolidation", dis.keyPos("consolidationPolicy"), "WhenUnderutilized became WhenEmptyOrUnderutilized with consolidateAfter %s", after)
	}
	if after == "" {
		after = "0s"
	}
	disruption := map[string]any{"consolidationPolicy": policy, "consolidateAfter": after}
	im.fromKeys(disruption, dis)
	if b := dis.get("budgets"); b.ok() {
		disruption["budgets"] = b.plain()
	}
	pool["disruption"] = disruption
	im.from(pool, "disruption", dis)

	switch exp := tmpl.get("spec", "expireAfter").str(); {
	case exp != "":
		pool["expireAfter"] = exp
		im.from(pool, "expireAfter", tmpl.get("spec", "expireAfter"))
	case beta && dis.get("expireAfter").ok():
		pool["expireAfter"] = dis.get("expireAfter").str()
		im.from(pool, "expireAfter", dis.get("expireAfter"))
		im.note("expiry", dis.keyPos("expireAfter"), "disruption.expireAfter moved to template.spec.expireAfter; v1 expiry no longer waits for replacement capacity or PDBs")
	case beta:
		pool["expireAfter"] = "720h"
	}
	if tg := tmpl.get("spec", "terminationGracePeriod").str(); tg != "" {
		pool["terminationGracePeriod"] = tg
		im.from(pool, "terminationGracePeriod", tmpl.get("spec", "terminationGracePeriod"))
	}
	if k := tmpl.get("spec", "kubelet"); k.ok() {
		im.kubelet(pool, k, name)
	}
	if r := tmpl.get("spec", "resources"); r.ok() {
		im.note("resources", tmpl.get("spec").keyPos("resources"), "template.spec.resources has no v1 form; dropped")
	}
	im.pools[name] = pool
}

// kubelet moves a pool's kubelet settings to its node class (v1).
func (im *importer) kubelet(pool map[string]any, k node, poolName string) {
	class, _ := pool["nodeClass"].(string)
	v := k.plain()
	if m, ok := v.(map[string]any); ok {
		if _, has := m["containerRuntime"]; has {
			delete(m, "containerRuntime")
			im.note("kubelet", k.keyPos("containerRuntime"), "kubelet containerRuntime is gone in v1 (containerd only); dropped")
		}
	}
	im.kubelets[poolName] = kubeletSource{v, k.pos(), class}
}

// applyKubelets puts each pool's kubelet settings on a node class, as
// upstream's migration does: where every pool of a class has the same
// settings (or the class has one pool), on the class itself; where they
// differ, each pool with settings of its own gets a copy of the class
// with them, so that no pool's nodes take another pool's kubelet.
func (im *importer) applyKubelets() {
	byClass := map[string][]string{}
	for _, pool := range slices.Sorted(maps.Keys(im.pools)) {
		class, _ := im.pools[pool]["nodeClass"].(string)
		byClass[class] = append(byClass[class], pool)
	}
	for _, class := range slices.Sorted(maps.Keys(byClass)) {
		pools := byClass[class]
		distinct := map[string]bool{}
		for _, p := range pools {
			k, ok := im.kubelets[p]
			distinct[fmt.Sprint(ok, k.value)] = true
		}
		for _, p := range pools {
			k, ok := im.kubelets[p]
			if !ok {
				continue
			}
			nc, found := im.classes[class]
			if !found {
				im.note("kubelet", k.pos, "kubelet settings of pool %s name node class %s, which is not in the input; dropped", p, class)
				continue
			}
			if len(distinct) == 1 {
				nc["kubelet"] = k.value
				im.note("kubelet", k.pos, "kubelet settings moved from the pool to node class %s", class)
				continue
			}
			copied := class + "-" + p
			cp := maps.Clone(nc)
			cp["kubelet"] = k.value
			im.classes[copied] = cp
			im.pools[p]["nodeClass"] = copied
			im.note("kubelet", k.pos, "kubelet settings moved from the pool to node class %s, a copy of %s: the other pools of %s have other kubelet settings, which stay theirs", copied, class, class)
		}
	}
}
