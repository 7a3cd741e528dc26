package importer

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/karpgen/karpgen/internal/profile/form"
)

// shorthand maps requirement keys to the profile fields that say them:
// the field's name, and the list of strings or of whole numbers it is.
var shorthand = map[string]shortField{
	"kubernetes.io/arch":                    {"arch", func(p *form.NodePool) *[]string { return &p.Arch }, nil},
	"kubernetes.io/os":                      {"os", func(p *form.NodePool) *[]string { return &p.OS }, nil},
	"karpenter.sh/capacity-type":            {"capacityTypes", func(p *form.NodePool) *[]string { return &p.CapacityTypes }, nil},
	"topology.kubernetes.io/zone":           {"zones", func(p *form.NodePool) *[]string { return &p.Zones }, nil},
	"karpenter.k8s.aws/instance-category":   {"instanceCategories", func(p *form.NodePool) *[]string { return &p.InstanceCategories }, nil},
	"karpenter.k8s.aws/instance-family":     {"instanceFamilies", func(p *form.NodePool) *[]string { return &p.InstanceFamilies }, nil},
	"karpenter.k8s.aws/instance-generation": {"instanceGenerations", nil, func(p *form.NodePool) *[]int { return &p.InstanceGenerations }},
	"karpenter.k8s.aws/instance-cpu":        {"instanceCPU", nil, func(p *form.NodePool) *[]int { return &p.InstanceCPU }},
	"karpenter.k8s.aws/instance-size":       {"instanceSizes", func(p *form.NodePool) *[]string { return &p.InstanceSizes }, nil},
	"node.kubernetes.io/instance-type":      {"instanceTypes", func(p *form.NodePool) *[]string { return &p.InstanceTypes }, nil},
}

// shortField is a pool's field that says a requirement: strings or ints
// gives the list it is.
type shortField struct {
	label   string
	strings func(*form.NodePool) *[]string
	ints    func(*form.NodePool) *[]int
}

// taken reports whether the pool sets the field already.
func (f shortField) taken(p *form.NodePool) bool {
	if f.ints != nil {
		return *f.ints(p) != nil
	}
	return *f.strings(p) != nil
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
func (im *importer) requirements(list node, pool *form.NodePool, at place) {
	at.from(list, "requirements")
	for _, r := range list.list() {
		key, op, values := r.get("key").str(), r.get("operator").str(), r.get("values").strings()
		if key == "" || !slices.Contains(operators, op) {
			im.note("requirement", r.pos(), "requirement %s %s is not one karpgen understands (a key and one of %s); dropped", orDash(key), orDash(op), strings.Join(operators, ", "))
			continue
		}
		field, short := shorthand[key]
		minValues, hasMin := r.get("minValues").integer()
		switch {
		case short && op == "In" && !field.taken(pool) && !hasMin:
			if field.ints != nil {
				if ints, ok := toInts(values); ok {
					*field.ints(pool) = ints
					at.from(r, field.label)
					continue
				}
				break
			}
			*field.strings(pool) = append([]string{}, values...)
			at.from(r, field.label)
			continue
		case key == "karpenter.k8s.aws/instance-generation" && op == "Gt" && len(values) == 1 && pool.InstanceGenerationAbove == nil:
			if g, err := strconv.Atoi(values[0]); err == nil {
				pool.InstanceGenerationAbove = &g
				at.from(r, "instanceGenerationAbove")
				continue
			}
		}
		req := form.Requirement{Key: key, Operator: op, Values: values}
		if hasMin {
			req.MinValues = &minValues
		}
		at.from(r, "requirements", "["+strconv.Itoa(len(pool.Requirements))+"]")
		pool.Requirements = append(pool.Requirements, req)
	}
}

// defaults states what the source left to Karpenter's defaults, so that
// the profile's own defaults do not change the meaning.
func (im *importer) defaults(pool *form.NodePool, at place, src node, anyArch bool) {
	if pool.CapacityTypes == nil {
		pool.CapacityTypes = []string{"on-demand"}
		at.from(src, "capacityTypes")
	}
	if pool.Arch == nil && anyArch {
		pool.Arch = []string{"amd64", "arm64"}
		at.from(src, "arch")
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
func (im *importer) alphaInstanceDefaults(spec node, pool *form.NodePool, at place) {
	reqs := spec.get("requirements")
	if !reqs.ok() {
		reqs = spec
	}
	for _, r := range reqs.list() {
		if slices.Contains(instanceKeys, r.get("key").str()) {
			return
		}
	}
	pool.InstanceCategories = []string{"c", "m", "r"}
	pool.InstanceGenerationAbove = form.Ptr(2)
	at.from(reqs, "instanceCategories")
	at.from(reqs, "instanceGenerationAbove")
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

func taints(list node) []form.Taint {
	var out []form.Taint
	for _, t := range list.list() {
		out = append(out, form.Taint{Key: t.get("key").str(), Value: t.get("value").str(), Effect: t.get("effect").str()})
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
	pool := &form.NodePool{}
	at := im.at("nodePools", name)
	at.from(d.get("metadata", "name"))
	im.requirements(spec.get("requirements"), pool, at)
	// The v1alpha5 webhook defaulted the architecture to amd64.
	if pool.Arch == nil {
		pool.Arch = []string{"amd64"}
		at.from(spec, "arch")
	}
	im.defaults(pool, at, spec, false)
	im.alphaInstanceDefaults(spec, pool, at)
	im.common(spec, pool, at)
	if l := spec.get("limits", "resources"); l.ok() {
		pool.Limits = plainMap(l)
		at.fromKeys(l, "limits")
	}

	empty, hasEmpty := seconds(spec.get("ttlSecondsAfterEmpty"))
	consolidate, _ := spec.get("consolidation", "enabled").boolean()
	at.from(spec, "disruption")
	switch {
	case consolidate:
		pool.Disruption = &form.NodePoolDisruption{ConsolidationPolicy: "WhenEmptyOrUnderutilized", ConsolidateAfter: "0s"}
		at.from(spec.get("consolidation"), "disruption")
		im.note("consolidation", spec.keyPos("consolidation"), "consolidation.enabled became consolidationPolicy WhenEmptyOrUnderutilized with consolidateAfter 0s")
	case hasEmpty:
		pool.Disruption = &form.NodePoolDisruption{ConsolidationPolicy: "WhenEmpty", ConsolidateAfter: empty}
		at.from(spec.get("ttlSecondsAfterEmpty"), "disruption")
		im.note("consolidation", spec.keyPos("ttlSecondsAfterEmpty"), "ttlSecondsAfterEmpty became consolidationPolicy WhenEmpty with consolidateAfter %s", empty)
	default:
		pool.Disruption = &form.NodePoolDisruption{ConsolidationPolicy: "WhenEmpty", ConsolidateAfter: "Never"}
		im.note("consolidation", spec.pos(), "no consolidation and no ttlSecondsAfterEmpty: consolidateAfter Never keeps nodes as before")
	}
	if exp, ok := seconds(spec.get("ttlSecondsUntilExpired")); ok {
		pool.ExpireAfter = exp
		at.from(spec.get("ttlSecondsUntilExpired"), "expireAfter")
		im.note("expiry", spec.keyPos("ttlSecondsUntilExpired"), "ttlSecondsUntilExpired became template.spec.expireAfter %s; v1 expiry is forceful: it no longer waits for replacement capacity and no disruption budget holds it back, though its drain still waits for PodDisruptionBudgets unless the pool's terminationGracePeriod runs out", exp)
	} else {
		pool.ExpireAfter = "Never"
	}
	switch {
	case spec.get("providerRef", "name").ok():
		pool.NodeClass = spec.get("providerRef", "name").str()
		at.from(spec.get("providerRef", "name"), "nodeClass")
	case spec.get("provider").ok():
		// The inline block holds what an AWSNodeTemplate's spec does: it
		// becomes a node class of the pool's name.
		provider := spec.get("provider")
		wrapped := node{provider.file, &yaml.Node{Kind: yaml.MappingNode, Content: []*yaml.Node{{Kind: yaml.ScalarNode, Value: "spec"}, provider.n}}}
		if _, taken := im.classes[name]; !taken {
			im.nodeTemplate(wrapped, name)
		}
		pool.NodeClass = name
		at.from(provider, "nodeClass")
		im.note("inline-provider", spec.keyPos("provider"), "the inline provider block became node class %q", name)
	}
	if k := spec.get("kubeletConfiguration"); k.ok() {
		im.kubelet(k, name)
	}
	im.pools[name] = pool
}

// common reads what all generations share at the same place.
func (im *importer) common(spec node, pool *form.NodePool, at place) {
	im.stringMap(&pool.Labels, at, "labels", spec.get("labels"))
	im.stringMap(&pool.Annotations, at, "annotations", spec.get("annotations"))
	if t := taints(spec.get("taints")); len(t) > 0 {
		pool.Taints = t
		at.from(spec.get("taints"), "taints")
	}
	if t := taints(spec.get("startupTaints")); len(t) > 0 {
		pool.StartupTaints = t
		at.from(spec.get("startupTaints"), "startupTaints")
	}
	if w, ok := spec.get("weight").integer(); ok {
		pool.Weight = &w
		at.from(spec.get("weight"), "weight")
	}
}

// stringMap sets *m (the field label of the struct at at) to the string
// map n holds, when it is there, and records where each of its keys came
// from.
func (im *importer) stringMap(m *map[string]string, at place, label string, n node) {
	if !n.ok() {
		return
	}
	*m = n.stringMap()
	at.fromKeys(n, label)
}

// plainMap is a map of the input as plain values (a pool's limits).
func plainMap(n node) map[string]any {
	m, _ := n.plain().(map[string]any)
	if m == nil && n.ok() {
		m = map[string]any{}
	}
	return m
}

// nodePool reads a karpenter.sh v1beta1 or v1 NodePool.
func (im *importer) nodePool(d node, name string, beta bool) {
	spec := d.get("spec")
	tmpl := spec.get("template")
	pool := &form.NodePool{}
	at := im.at("nodePools", name)
	at.from(d.get("metadata", "name"))
	im.requirements(tmpl.get("spec", "requirements"), pool, at)
	im.defaults(pool, at, tmpl.get("spec", "requirements"), true)
	im.common(tmpl.get("spec"), pool, at)
	im.stringMap(&pool.Labels, at, "labels", tmpl.get("metadata", "labels"))
	im.stringMap(&pool.Annotations, at, "annotations", tmpl.get("metadata", "annotations"))
	if w, ok := spec.get("weight").integer(); ok {
		pool.Weight = &w
		at.from(spec.get("weight"), "weight")
	}
	if l := spec.get("limits"); l.ok() {
		pool.Limits = plainMap(l)
		at.fromKeys(l, "limits")
	}
	pool.NodeClass = tmpl.get("spec", "nodeClassRef", "name").str()
	at.from(tmpl.get("spec", "nodeClassRef"), "nodeClass")
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
	pool.Disruption = &form.NodePoolDisruption{ConsolidationPolicy: policy, ConsolidateAfter: after}
	at.fromKeys(dis, "disruption")
	if b := dis.get("budgets"); b.ok() {
		pool.Disruption.Budgets = im.budgets(b)
	}

	switch exp := tmpl.get("spec", "expireAfter").str(); {
	case exp != "":
		pool.ExpireAfter = exp
		at.from(tmpl.get("spec", "expireAfter"), "expireAfter")
	case beta && dis.get("expireAfter").ok():
		pool.ExpireAfter = dis.get("expireAfter").str()
		at.from(dis.get("expireAfter"), "expireAfter")
		im.note("expiry", dis.keyPos("expireAfter"), "disruption.expireAfter moved to template.spec.expireAfter; v1 expiry is forceful: it no longer waits for replacement capacity and no disruption budget holds it back, though its drain still waits for PodDisruptionBudgets unless the pool's terminationGracePeriod runs out")
	case beta:
		pool.ExpireAfter = "720h"
	}
	if tg := tmpl.get("spec", "terminationGracePeriod").str(); tg != "" {
		pool.TerminationGracePeriod = tg
		at.from(tmpl.get("spec", "terminationGracePeriod"), "terminationGracePeriod")
	}
	if k := tmpl.get("spec", "kubelet"); k.ok() {
		im.kubelet(k, name)
	}
	if r := tmpl.get("spec", "resources"); r.ok() {
		im.note("resources", tmpl.get("spec").keyPos("resources"), "template.spec.resources has no v1 form; dropped")
	}
	im.pools[name] = pool
}

// budgets reads a pool's disruption budgets; a field a budget of the
// profile does not have is dropped with a note (an empty list stays one:
// it lets Karpenter disrupt every node at once).
func (im *importer) budgets(list node) []form.Budget {
	out := []form.Budget{}
	for _, b := range list.list() {
		for _, k := range b.keys() {
			if !slices.Contains([]string{"nodes", "schedule", "duration", "reasons"}, k) {
				im.note("budget", b.keyPos(k), "budget field %s is not one of a v1 NodePool's budgets (nodes, schedule, duration, reasons); dropped", k)
			}
		}
		out = append(out, form.Budget{Nodes: b.get("nodes").str(), Schedule: b.get("schedule").str(), Duration: b.get("duration").str(), Reasons: b.get("reasons").strings()})
	}
	return out
}

// kubelet moves a pool's kubelet settings to its node class (v1).
func (im *importer) kubelet(k node, poolName string) {
	v, _ := k.plain().(map[string]any)
	if _, has := v["containerRuntime"]; has {
		delete(v, "containerRuntime")
		im.note("kubelet", k.keyPos("containerRuntime"), "kubelet containerRuntime is gone in v1 (containerd only); dropped")
	}
	im.kubelets[poolName] = kubeletSource{v, k.pos()}
}

// applyKubelets puts each pool's kubelet settings on a node class, as
// upstream's migration does: where every pool of a class has the same
// settings (or the class has one pool), on the class itself; where they
// differ, each pool with settings of its own gets a copy of the class
// with them, so that no pool's nodes take another pool's kubelet.
func (im *importer) applyKubelets() {
	byClass := map[string][]string{}
	for _, pool := range slices.Sorted(maps.Keys(im.pools)) {
		class := im.pools[pool].NodeClass
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
				nc.Kubelet = k.value
				im.note("kubelet", k.pos, "kubelet settings moved from the pool to node class %s", class)
				continue
			}
			copied := class + "-" + p
			cp := *nc
			cp.Kubelet = k.value
			im.classes[copied] = &cp
			im.copyOrigins([]string{"nodeClasses", class}, []string{"nodeClasses", copied})
			im.pools[p].NodeClass = copied
			im.note("kubelet", k.pos, "kubelet settings moved from the pool to node class %s, a copy of %s: the other pools of %s have other kubelet settings, which stay theirs", copied, class, class)
		}
	}
}
