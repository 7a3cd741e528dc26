// Package upgrade plans the move of one environment from the Karpenter
// version it runs to another: the hops (every minor in between at its
// latest patch), what each hop changes (controller IAM, node role,
// interruption rules, chart values, CRDs, node drift), what blocks the
// move, and the steps in the order they are applied. Everything is derived
// from the facts table and the generators; nothing is written per pair.
package upgrade

import (
	"fmt"
	"strings"

	"github.com/karpgen/karpgen/generators"
	"github.com/karpgen/karpgen/internal/diag"
	"github.com/karpgen/karpgen/internal/doctor/live"
	"github.com/karpgen/karpgen/internal/facts"
	"github.com/karpgen/karpgen/internal/fieldpos"
	"github.com/karpgen/karpgen/internal/fleetdiff"
	"github.com/karpgen/karpgen/internal/iam/cfnpreview"
	"github.com/karpgen/karpgen/internal/iam/iampolicy"
	"github.com/karpgen/karpgen/internal/lint"
	"github.com/karpgen/karpgen/internal/model"
	"github.com/karpgen/karpgen/internal/util/lazyre"
)

// Plan is the move of one environment. Its JSON form is documented in
// docs/upgrade.md and stable for scripts.
type Plan struct {
	Env               string `json:"env"`
	From              string `json:"from"`
	To                string `json:"to"`
	KubernetesVersion string `json:"kubernetesVersion"`
	// KubernetesTo is the Kubernetes version the move ends on, when
	// Kubernetes moves too (Options.KubernetesTo): its upgrades are steps of
	// the plan, between the Karpenter hops that need them.
	KubernetesTo string           `json:"kubernetesTo,omitempty"`
	Kubernetes   []KubernetesStep `json:"kubernetes,omitempty"`
	// Blockers are why the move cannot start: errors of the upgrade/
	// rules, and of the profile's rules the target refuses.
	Blockers []diag.Finding `json:"blockers"`
	Hops     []Hop          `json:"hops"`
	Steps    []Step         `json:"steps"`
	// State is the capture the plan was made from ("" for none); without
	// one, Assumes says what the plan takes the cluster to hold.
	State   string   `json:"state,omitempty"`
	Assumes []string `json:"assumes,omitempty"`
	// Stack is what deploying the target's IAM does to its stack, from
	// the capture.
	Stack *StackPreview `json:"stack,omitempty"`
	// Retirement says what the getting-started stack still holds of what
	// the profile adopts, and how to retire it without deleting that.
	Retirement []string `json:"retirement,omitempty"`

	live *live.Cluster

	// versions are the releases the controller runs on the way, from
	// first to last; envs the environment resolved at each (nil for the 0.x
	// releases, which karpgen does not render).
	versions []facts.Version
	// kube is the Kubernetes minor the cluster runs at each release.
	kube    []string
	envs    []*model.Env
	bundles []*model.Bundle
	// beta are the v1beta1 controller policies of a move from v1alpha5.
	beta []iampolicy.ControllerPolicy
}

// StackPreview is what deploying a template to a stack does to each
// resource it holds or will hold.
type StackPreview struct {
	Name    string              `json:"name"`
	Exists  bool                `json:"exists"`
	Changes []cfnpreview.Change `json:"changes"`
}

// KubernetesStep is one Kubernetes minor upgrade of the cluster (EKS moves
// one minor at a time), made before the Karpenter hop to Before ("" for
// after the last hop).
type KubernetesStep struct {
	From   string `json:"from"`
	To     string `json:"to"`
	Before string `json:"beforeKarpenter,omitempty"`
}

// Hop is one minor-to-minor step of the move.
type Hop struct {
	From string `json:"from"`
	To   string `json:"to"`
	// LTSUntil is the end of support of the target's minor when it is a
	// long-term-support minor, "" otherwise.
	LTSUntil string    `json:"ltsUntil,omitempty"`
	IAM      IAMDelta  `json:"iam"`
	NodeRole NodeDelta `json:"nodeRole"`
	Values   Values    `json:"values"`
	CRDs     CRDDelta  `json:"crds"`
	// Drift names the pools whose nodes the hop replaces, from Objects.
	Drift []string `json:"drift"`
	Notes []string `json:"notes"`
	// OutsideMatrix says the release of To is not tested on the
	// Kubernetes the cluster runs then: a start that EKS's forced
	// upgrades left behind moves forward through it.
	OutsideMatrix string `json:"outsideMatrix,omitempty"`
	// Objects, Policies and Helm are what the bundle rendered at From
	// becomes at To, compared as karpgen diff compares a change: the
	// NodePools and EC2NodeClasses with each field's effect under both
	// releases' drift rules and what paces the replacement of their
	// nodes, the IAM documents, the Helm values. Empty for the hops
	// within and out of the v1beta1 minors, whose bundles karpgen does
	// not render.
	Objects  []fleetdiff.Object `json:"objects"`
	Policies []fleetdiff.Policy `json:"policies"`
	Helm     []fleetdiff.Value  `json:"helm"`
}

// IAMDelta is what changes in the controller's policies
// (fleetdiff.Controller).
type IAMDelta = fleetdiff.ControllerDelta

// NodeDelta is what changes in the node role's managed policies.
type NodeDelta struct {
	ManagedPoliciesAdded   []string `json:"managedPoliciesAdded"`
	ManagedPoliciesRemoved []string `json:"managedPoliciesRemoved"`
}

// Values is what changes in the chart's values (fleetdiff.Chart).
type Values = fleetdiff.ChartDelta

// CRDDelta is what changes in the CRDs.
type CRDDelta struct {
	Added   []string `json:"added"`
	Changed []string `json:"changed"`
}

// Step is one thing to do, in order, with the command that does it (or
// checks it).
type Step struct {
	Order   int    `json:"order"`
	Title   string `json:"title"`
	Command string `json:"command"`
	// IfFails says what to do when a check's command shows a problem.
	IfFails string `json:"ifFails,omitempty"`
}

// ToLTS asks for the newest long-term-support minor as the target.
const ToLTS = "lts"

// Options say what move to plan.
type Options struct {
	// From is the version the cluster runs: the profile's when empty
	// (0.33 to 0.37 are accepted for the move to v1, and 0.31 and 0.32
	// for the move from the v1alpha5 APIs).
	From string
	// To is the target version, or ToLTS.
	To string
	// KubernetesTo, when set, moves Kubernetes too, one minor at a
	// time, each Kubernetes upgrade placed between the Karpenter hops
	// so that every step stays inside both compatibility ranges.
	KubernetesTo string
	// Live is what a capture says the account and cluster hold; nil
	// plans from what the plan assumes, and says so.
	Live *live.Cluster
}

// OptionError is a move the planner refuses because of one option: the
// field of Options, the value given, and why.
type OptionError = diag.OptionError

// New plans the move of a resolved environment.
func New(e *model.Env, o Options) (*Plan, error) {
	from, to, kubeTo := o.From, o.To, o.KubernetesTo
	if kubeTo == e.Profile.Cluster.KubernetesVersion {
		kubeTo = ""
	}
	if from == "" {
		from = e.Profile.Karpenter.Version
	}
	refuse := func(option, value, format string, args ...any) error {
		return &OptionError{Option: option, Value: value, Reason: fmt.Sprintf(format, args...)}
	}
	fv, fm, err := model.Release(from)
	if err != nil {
		return nil, refuse("From", "", "%v", err)
	}
	if to == ToLTS {
		// The newest long-term-support minor's newest patch.
		lts := facts.LTS()
		to = lts[len(lts)-1].NewestPatch().String()
	}
	tv, tm, err := model.Release(to)
	if err != nil {
		return nil, refuse("To", "", "%v", err)
	}
	if tm == nil {
		return nil, refuse("To", tv.String(), "karpgen knows Karpenter %s to %s", facts.Oldest().Minor, facts.Newest().Minor)
	}
	if !tm.Known(tv) {
		return nil, refuse("To", tv.String(), "karpgen knows %s releases up to %s (a newer patch has no chart to pull yet)", tm.Minor, tm.NewestPatch())
	}
	alpha := facts.Alpha.Holds(fv)
	zero := fv.Major == 0
	switch {
	case zero && !alpha && !facts.Beta.Holds(fv):
		return nil, refuse("From", fv.String(), "upgrades start from a v1 minor, from 0.%d to %s (the v1beta1 APIs), or from 0.%d or %s (the v1alpha5 APIs)",
			facts.Beta.Oldest, facts.Beta.Minor, facts.Alpha.Oldest, facts.Alpha.Minor)
	case !zero && fm == nil:
		return nil, refuse("From", fv.String(), "karpgen knows Karpenter %s to %s", facts.Oldest().Minor, facts.Newest().Minor)
	case !zero && !fm.Known(fv):
		// A cluster cannot run a release that was never made: a typo in
		// --from (1.2.99) would plan hops from a version nobody runs.
		return nil, refuse("From", fv.String(), "Karpenter %s has no release %s: its newest is %s", fm.Minor, fv, fm.NewestPatch())
	}
	if !fv.Less(tv) {
		return nil, refuse("To", tv.String(), "not newer than %s", fv)
	}
	p := &Plan{Env: e.Name, From: fv.String(), To: tv.String(), KubernetesVersion: e.Profile.Cluster.KubernetesVersion, KubernetesTo: kubeTo, live: o.Live}
	if kubeTo != "" && !kubeMinor().MatchString(kubeTo) {
		return nil, refuse("KubernetesTo", kubeTo, "give a Kubernetes minor, e.g. 1.33")
	}
	if kubeTo != "" && facts.MinorLess(kubeTo, p.KubernetesVersion) {
		return nil, refuse("KubernetesTo", kubeTo, "older than the cluster's %s", p.KubernetesVersion)
	}

	// The releases on the way: the start, the latest patch of every minor
	// in between, the target.
	p.versions = []facts.Version{fv}
	if alpha {
		// Through the latest 0.32 patch, which serves both APIs while the
		// objects are converted, as the v1beta1 migration asks.
		if last, _, _ := model.Release(strings.TrimPrefix(facts.Alpha.Reference, "v")); fv.Less(last) {
			p.versions = append(p.versions, last)
		}
	}
	if zero {
		// Through the latest 0.37 patch, as the v1 migration asks.
		if last, _, _ := model.Release(strings.TrimPrefix(facts.Beta.Reference, "v")); fv.Less(last) {
			p.versions = append(p.versions, last)
		}
	}
	for _, m := range facts.Minors {
		v, _, _ := model.Release(strings.TrimPrefix(m.Reference, "v"))
		if fv.MinorBefore(v) && v.MinorBefore(tv) {
			p.versions = append(p.versions, v)
		}
	}
	p.versions = append(p.versions, tv)
	kube := p.kubernetesPath()
	p.kube = kube
	for i, v := range p.versions {
		if v.Major == 0 {
			p.envs = append(p.envs, nil)
			continue
		}
		p.envs = append(p.envs, at(e, v, kube[i]))
	}
	p.bundles = make([]*model.Bundle, len(p.envs))
	for i, env := range p.envs {
		if env == nil {
			continue
		}
		if p.bundles[i], err = generators.Render(env); err != nil {
			return nil, fmt.Errorf("rendering %s at Karpenter %s: %w", e.Name, p.versions[i], err)
		}
	}

	if err := p.makeBetaPolicies(); err != nil {
		return nil, err
	}
	p.startBlockers(e, fv, tv, kube[0])
	p.blockers(tm, tv, kube)
	if err := p.readLive(); err != nil {
		return nil, err
	}
	for i := 1; i < len(p.versions); i++ {
		h, err := p.hop(i)
		if err != nil {
			return nil, err
		}
		p.Hops = append(p.Hops, h)
	}
	// A blocked plan has no steps: none of them may start, and none is
	// printed for someone to paste.
	if !p.Blocked() {
		p.Steps = p.steps()
	}
	return p, nil
}

// at resolves the environment's profile at another Karpenter version
// and the Kubernetes version the cluster runs then.
func at(e *model.Env, v facts.Version, kube string) *model.Env { return e.At(v.String(), kube) }

// startBlockers are the blockers of where the move starts: a target
// older than the profile's version (writing the plan would take the
// profile back), and a starting version that cannot run on the
// cluster's Kubernetes (the starting version, or cluster.kubernetesVersion, is not the
// cluster's).
func (p *Plan) startBlockers(e *model.Env, fv, tv facts.Version, kube string) {
	if pv, _, err := model.Release(e.Profile.Karpenter.Version); err == nil && tv.Less(pv) {
		p.Blockers = append(p.Blockers, block("upgrade/profile-newer", fmt.Sprintf(
			"the profile runs Karpenter %s, newer than the target %s: writing this plan would take the profile back; plan to %s (the profile's version), or lower the profile's version on purpose first",
			pv, tv, pv)))
	}
	rng := facts.ZeroKubernetes(fv)
	if fv.Major > 0 {
		rng, _ = p.envs[0].KubernetesRange()
	}
	// A cluster newer than the start supports is where EKS's forced
	// upgrades put every cluster left on an old release: Karpenter checks
	// only a minimum version, so it runs there, and the plan moves forward
	// from it (each hop outside the tested matrix says so). One older
	// than the start supports cannot be running it.
	if facts.MinorLess(kube, rng[0]) {
		p.Blockers = append(p.Blockers, block("upgrade/from-kubernetes", fmt.Sprintf(
			"Karpenter %s supports Kubernetes %s to %s; the cluster runs %s, so it cannot be running Karpenter %s: plan from the version the cluster runs, or set cluster.kubernetesVersion to the cluster's",
			fv, rng[0], rng[1], kube, fv)))
	}
}

// block is a blocker of the upgrade's own rules.
func block(rule, message string) diag.Finding {
	return diag.Finding{Rule: rule, Severity: diag.Error, Message: message}
}

// Blocked reports whether the move cannot start.
func (p *Plan) Blocked() bool { return len(p.Blockers) > 0 }

func (p *Plan) blockers(tm *facts.Minor, tv facts.Version, kube []string) {
	if b, ok := tm.BadPatch(tv); ok {
		p.Blockers = append(p.Blockers, block("upgrade/known-regression", fmt.Sprintf("Karpenter %s has a known regression: %s (%s); move to %s.%d instead", tv, b.Summary, b.Issue, tm.Minor, b.FixedIn)))
	}
	// One blocker for the first release the cluster's Kubernetes does not
	// run (not one per later hop), naming the way through.
	for i, v := range p.versions[1:] {
		k := kube[i+1]
		rng := facts.ZeroKubernetes(v)
		if e := p.envs[i+1]; e != nil {
			rng, _ = e.KubernetesRange()
		}
		switch {
		case facts.MinorLess(k, rng[0]):
			msg := fmt.Sprintf("Karpenter %s supports Kubernetes %s to %s; the cluster runs %s%s: upgrade Kubernetes to %s before the hop to %s, or move Kubernetes in the same plan, to %s (or later)",
				v, rng[0], rng[1], k, lastSupporting(k), rng[0], v, rng[0])
			if p.KubernetesTo != "" {
				// The path moved Kubernetes as far as it could.
				msg = fmt.Sprintf("Karpenter %s needs Kubernetes %s or later, but the Karpenter before it runs only up to %s: no order of one-minor Kubernetes upgrades keeps both in range", v, rng[0], kube[i])
			}
			p.Blockers = append(p.Blockers, block("upgrade/kubernetes-too-old", msg))
			return
		case facts.MinorLess(rng[1], k) && p.targetRuns(k):
			// On the way forward to a release that supports the cluster's
			// Kubernetes: outside the tested matrix, said on the hop.
			continue
		case facts.MinorLess(rng[1], k):
			p.Blockers = append(p.Blockers, block("upgrade/kubernetes-too-new",
				fmt.Sprintf("Karpenter %s supports Kubernetes %s to %s; the cluster runs %s%s", v, rng[0], rng[1], k, lastSupporting(k))))
			return
		}
	}
	if p.KubernetesTo != "" && kube[len(kube)-1] != p.KubernetesTo {
		rng, _ := p.envs[len(p.envs)-1].KubernetesRange()
		p.Blockers = append(p.Blockers, block("upgrade/kubernetes-too-new",
			fmt.Sprintf("Karpenter %s supports Kubernetes up to %s; the Kubernetes target is %s%s", tv, rng[1], p.KubernetesTo, lastSupporting(p.KubernetesTo))))
	}
	// What the profile says that the target refuses: the rule catalog at
	// the target version (the version rules aside: the target is the
	// point).
	target := p.envs[len(p.envs)-1]
	for _, f := range lint.Check(target, fieldpos.Source{}) {
		// A pinned AMI release older than the Kubernetes target is moved
		// by a step before the control plane (kubernetesSteps).
		if f.Severity != diag.Error || strings.HasPrefix(f.Rule, "version/") || f.Rule == "value/ami-release" && p.KubernetesTo != "" {
			continue
		}
		f.Env, f.Message = "", fmt.Sprintf("at Karpenter %s the profile is refused: %s (%s)", tv, f.Message, strings.TrimPrefix(f.Path, "environments."+p.Env+"."))
		p.Blockers = append(p.Blockers, f)
	}
}

var kubeMinor = lazyre.New(`^1\.[0-9]+$`)

// targetRuns says the target release supports Kubernetes k.
func (p *Plan) targetRuns(k string) bool {
	rng, _ := p.envs[len(p.envs)-1].KubernetesRange()
	return !facts.MinorLess(k, rng[0]) && !facts.MinorLess(rng[1], k)
}

// outsideMatrix is why release i runs outside its tested Kubernetes
// range, "" when it does not, with what to watch there.
func (p *Plan) outsideMatrix(i int) string {
	v, k := p.versions[i], p.kube[i]
	rng := facts.ZeroKubernetes(v)
	if e := p.envs[i]; e != nil {
		rng, _ = e.KubernetesRange()
	}
	if !facts.MinorLess(rng[1], k) {
		return ""
	}
	return fmt.Sprintf("outside the tested matrix: Karpenter %s is tested on Kubernetes %s to %s and the cluster runs %s. Karpenter checks only a minimum version, so it starts; "+
		"stay on it no longer than the next hop, and after the hop check that the controller is Ready and logs no error, and that a pod that needs a new node gets one", v, rng[0], rng[1], k)
}

// kubernetesPath is the Kubernetes version the cluster runs at each
// release of the move, and the Kubernetes upgrades (p.Kubernetes) that
// get it there: without a Kubernetes target, the cluster's throughout. With
// it, Kubernetes moves one minor at a time, as late as each hop needs
// and no further than the Karpenter running then supports, and after the
// last hop on to the target.
func (p *Plan) kubernetesPath() []string {
	k := p.KubernetesVersion
	path := make([]string, len(p.versions))
	path[0] = k
	step := func(before string, limit string) {
		for facts.MinorLess(k, limit) {
			next := facts.NextMinor(k)
			p.Kubernetes = append(p.Kubernetes, KubernetesStep{From: k, To: next, Before: before})
			k = next
		}
	}
	for i, v := range p.versions {
		if i > 0 && p.KubernetesTo != "" && v.Major > 0 {
			rng, _ := model.KubernetesRangeOf(v.String())
			prev := facts.ZeroKubernetes(p.versions[i-1])
			if pv := p.versions[i-1]; pv.Major > 0 {
				prev, _ = model.KubernetesRangeOf(pv.String())
			}
			// Up to what this release needs, never past what the one
			// running now supports, nor past the target.
			need := rng[0]
			if facts.MinorLess(prev[1], need) {
				need = prev[1]
			}
			if facts.MinorLess(p.KubernetesTo, need) {
				need = p.KubernetesTo
			}
			step(v.String(), need)
		}
		path[i] = k
	}
	if p.KubernetesTo != "" {
		last := p.versions[len(p.versions)-1]
		rng, _ := model.KubernetesRangeOf(last.String())
		target := p.KubernetesTo
		if facts.MinorLess(rng[1], target) {
			target = rng[1]
		}
		step("", target)
		path[len(path)-1] = k
	}
	return path
}

// lastSupporting names the newest Karpenter minor that runs on Kubernetes k.
func lastSupporting(k string) string {
	last := ""
	for _, m := range facts.Minors {
		if !facts.MinorLess(k, m.Kubernetes[0]) && !facts.MinorLess(m.Kubernetes[1], k) {
			last = m.Minor
		}
	}
	if last == "" {
		return ""
	}
	return fmt.Sprintf(": the newest Karpenter minor for it is %s", last)
}

func (p *Plan) hop(i int) (Hop, error) {
	from, to := p.versions[i-1], p.versions[i]
	a, b := p.envs[i-1], p.envs[i]
	h := Hop{From: from.String(), To: to.String(), OutsideMatrix: p.outsideMatrix(i)}
	if m, ok := facts.Lookup(to); ok {
		h.LTSUntil = m.LTSUntil
	}
	// Charts karpgen has no values of (before 0.37) give no delta.
	if fromChart, toChart := facts.ChartValues(from.MinorString()), facts.ChartValues(to.MinorString()); fromChart != nil && toChart != nil {
		h.Values = fleetdiff.Chart(fromChart, toChart)
	}
	if b == nil {
		p.zeroHop(&h, from, to)
		normalize(&h)
		return h, nil
	}
	if a == nil {
		// The move to v1: the v1beta1 artifacts are not in the table.
		for _, cp := range iampolicy.ControllerPolicies(b.Facts, b.Names, b.IAMGates) {
			h.IAM.PoliciesAdded = append(h.IAM.PoliciesAdded, cp.Name)
		}
		h.IAM.PoliciesRemoved = []string{"the v1beta1 controller policy"}
		if p.FromAlpha() {
			h.IAM.PoliciesRemoved = nil
			for _, cp := range p.betaPolicies() {
				h.IAM.PoliciesRemoved = append(h.IAM.PoliciesRemoved, cp.Name)
			}
		}
		h.CRDs.Added = nil
		h.CRDs.Changed = []string{"NodePool, NodeClaim and EC2NodeClass move to karpenter.sh/v1 and karpenter.k8s.aws/v1 (v1beta1 is still served through 1.0's conversion webhooks)"}
		h.Drift = []string{"metadataOptions.httpPutResponseHopLimit defaults to 1 in v1 (2 before): node classes that leave it unset drift and their nodes are replaced"}
		h.Notes = []string{
			"Go to the latest 0.33-0.37 patch with webhooks enabled first, then 1.0: its conversion webhooks serve the v1beta1 objects while they are migrated.",
			"Migrate the manifests to v1 (karpgen import reads them), and check that the CRDs' status.storedVersions is [v1] before leaving 1.0.",
		}
		normalize(&h)
		return h, nil
	}
	c, err := fleetdiff.Compare(p.Env, a, b, p.bundles[i-1], p.bundles[i])
	if err != nil {
		return h, fmt.Errorf("comparing %s with %s: %w", from, to, err)
	}
	if c != nil {
		h.Objects, h.Policies, h.Helm = c.Objects, c.IAM, c.Helm
	}
	h.IAM = fleetdiff.Controller(a, b, p.bundles[i-1], p.bundles[i])
	h.NodeRole.ManagedPoliciesAdded, h.NodeRole.ManagedPoliciesRemoved = iampolicy.Diff(a.Facts.NodeRolePolicies, b.Facts.NodeRolePolicies)
	h.CRDs.Added, _ = iampolicy.Diff(a.Facts.CRDs, b.Facts.CRDs)
	h.CRDs.Changed = crdChanges(a.Facts, b.Facts)
	h.Drift = driftLines(h.Objects)
	var rulesBefore, rulesAfter []string
	for _, r := range a.Facts.InterruptionRules {
		rulesBefore = append(rulesBefore, r.Name)
	}
	for _, r := range b.Facts.InterruptionRules {
		rulesAfter = append(rulesAfter, r.Name)
	}
	if added, _ := iampolicy.Diff(rulesBefore, rulesAfter); len(added) > 0 && b.Names.Queue != "" {
		h.Notes = append(h.Notes, "Interruption rules added: "+strings.Join(added, ", ")+" (EventBridge, targeting the queue "+b.Names.Queue+").")
	}
	for _, g := range b.Facts.FeatureGates {
		if _, set := b.Profile.Karpenter.FeatureGates[g.Name]; set {
			continue
		}
		for _, old := range a.Facts.FeatureGates {
			if old.Name == g.Name && old.Default != g.Default {
				h.Notes = append(h.Notes, fmt.Sprintf("The %s feature gate's default turns %v (it was %v) and the profile does not set it: behaviour changes (set karpenter.featureGates.%s to keep it).",
					g.Name, g.Default, old.Default, g.Name))
			}
		}
	}
	if from.Minor == 0 && to.Minor >= 1 {
		h.Notes = append(h.Notes, "1.1 drops the v1beta1 APIs and the conversion webhooks: the CRDs' status.storedVersions must be [v1] and no v1beta1 webhook configuration may remain.")
	}
	if a.Facts.IAM.Split != b.Facts.IAM.Split {
		h.Notes = append(h.Notes, "The controller policy is split into several managed policies, as upstream splits it.")
	}
	normalize(&h)
	return h, nil
}

// normalize gives every list of a hop a value, so that JSON has [] and
// never null.
func normalize(h *Hop) {
	for _, l := range []*[]string{&h.IAM.Added, &h.IAM.Removed, &h.IAM.Rescoped, &h.IAM.PoliciesAdded, &h.IAM.PoliciesRemoved,
		&h.NodeRole.ManagedPoliciesAdded, &h.NodeRole.ManagedPoliciesRemoved, &h.Values.Added, &h.Values.Removed,
		&h.CRDs.Added, &h.CRDs.Changed, &h.Drift, &h.Notes} {
		if *l == nil {
			*l = []string{}
		}
	}
	if h.Values.Renamed == nil {
		h.Values.Renamed = []fleetdiff.Rename{}
	}
	if h.Values.DefaultsChanged == nil {
		h.Values.DefaultsChanged = []fleetdiff.DefaultChange{}
	}
	if h.Objects == nil {
		h.Objects = []fleetdiff.Object{}
	}
	if h.Policies == nil {
		h.Policies = []fleetdiff.Policy{}
	}
	if h.Helm == nil {
		h.Helm = []fleetdiff.Value{}
	}
}
