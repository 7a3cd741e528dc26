// Package model resolves each environment once. After loading, a profile
// becomes an Env: the validated profile, the facts row of its Karpenter
// minor, every derived name and ARN, where workloads land, and its Argo CD
// Application. The lint rules, the generators and the summary read an Env
// and never derive these again, so every artifact of a bundle agrees.
package model

import (
	"fmt"
	"reflect"
	"slices"

	"github.com/karpgen/karpgen/internal/facts"
	"github.com/karpgen/karpgen/internal/iameval"
	"github.com/karpgen/karpgen/internal/profile"
)

// Env is one resolved environment.
type Env struct {
	// Name is the environment's key under `environments`.
	Name    string
	Profile *profile.Profile
	// Version is the profile's Karpenter version (VersionErr says why it
	// is malformed) and Facts the row of its minor: nil when the version is
	// malformed or not supported. Lint reports both; nothing is rendered.
	Version    facts.Version
	VersionErr error
	Facts      *facts.Minor
	Names      Names
	Placement  Placement
	// Windows: a pool may launch Windows nodes.
	Windows bool
	// Gates are the chart feature gates the profile's features need on.
	Gates []string
	// IAMGates are the settings that change the controller's IAM.
	IAMGates IAMGates
	// Application is how Argo CD delivers the environment; nil without an
	// argocd section (or without facts).
	Application *Application
	// Guardrails are the organization's policies the profile names, read
	// from the profiles folder by the pipeline; nil without guardrails.
	Guardrails *Guardrails
}

// Guardrails are the organization's policy documents around the
// controller's IAM: service control policies by level (root first),
// resource control policies and the permissions boundary.
type Guardrails struct {
	SCPs, RCPs []iameval.Level
	Boundary   *iameval.Policy
	// Dir is the profiles folder the documents' names are relative to.
	Dir string
}

// At is the environment resolved again at another Karpenter version and
// the Kubernetes version the cluster runs then, with everything Resolve
// does not derive from the profile carried over (the guardrails), so that
// every check of the target is the check vet makes.
func (e *Env) At(version, kubernetes string) *Env {
	cp := *e.Profile
	cp.Karpenter.Version = version
	cp.Cluster.KubernetesVersion = kubernetes
	at := Resolve(&cp)
	at.Guardrails = e.Guardrails
	return at
}

// Resolve derives everything an environment's artifacts share.
func Resolve(p *profile.Profile) *Env {
	e := &Env{Name: p.Env, Profile: p, Names: namesOf(p), Placement: placementOf(p)}
	for _, np := range p.NodePools {
		e.Windows = e.Windows || slices.Contains(np.OS, "windows")
	}
	e.Version, e.Facts, e.VersionErr = Release(p.Karpenter.Version)
	if e.Facts != nil {
		e.Application = applicationOf(p, e.Facts, e.Names)
		e.Gates = gatesOf(p, e.Facts)
		// Node repair reboots only with both gates on: least privilege
		// leaves ec2:RebootInstances out otherwise.
		e.IAMGates = IAMGates{RebootForRepair: e.Facts.IAM.RebootForRepair && p.Karpenter.AWSFeatureGates["rebootForRepair"] &&
			GateValues(e.Facts.FeatureGates, p.Karpenter.FeatureGates, e.Gates)[facts.GateNeeds["rebootForRepair"]]}
	}
	return e
}

// HeadroomImage is the image of a pool's placeholder pods: the profile's,
// else EKS's own pause image of the region in aws-cn, whose nodes often
// cannot reach registry.k8s.io, else the upstream pause image.
func HeadroomImage(n Names, h *profile.Headroom) string {
	if h != nil && h.Image != "" {
		return h.Image
	}
	if account, ok := facts.EKSImageAccounts[n.Region]; ok {
		return account + ".dkr.ecr." + n.Region + "." + n.URLSuffix + "/eks/pause:3.10"
	}
	return facts.PauseImage
}

// IAMGates are the chart settings that add to the controller's policy.
type IAMGates struct {
	// RebootForRepair: node repair reboots instances
	// (settings.awsFeatureGates.rebootForRepair, 1.15 and later).
	RebootForRepair bool
}

// GateValues are the values the chart receives for a list of gates: the
// profile's choice, else on when a feature of the profile needs it, else
// the chart default; a gate whose chart default is null only when the
// profile sets it. The Helm values write them, and the IAM follows them.
func GateValues(gates []facts.Gate, set map[string]bool, needed []string) map[string]bool {
	out := map[string]bool{}
	for _, g := range gates {
		v, ok := set[g.Name]
		if !ok && g.Unset {
			continue
		}
		if !ok {
			v = g.Default || slices.Contains(needed, g.Name)
		}
		out[g.Name] = v
	}
	return out
}

// gatesOf lists the chart gates of the minor that the profile's features
// need: NodeOverlays, CapacityBuffers, static pools, reserved capacity.
func gatesOf(p *profile.Profile, m *facts.Minor) []string {
	need := map[string]bool{
		"nodeOverlay":    len(p.NodeOverlays) > 0,
		"capacityBuffer": len(p.CapacityBuffers) > 0,
	}
	for _, np := range p.NodePools {
		need["staticCapacity"] = need["staticCapacity"] || np.Replicas != nil
		need["reservedCapacity"] = need["reservedCapacity"] || slices.Contains(np.CapacityTypes, facts.ReservedCapacity)
	}
	var out []string
	for _, g := range m.FeatureGates {
		if need[g.Name] {
			out = append(out, g.Name)
		}
	}
	return out
}

// Supported says why the environment has no facts row, or nil.
func (e *Env) Supported() error {
	switch {
	case e.VersionErr != nil:
		return e.VersionErr
	case e.Facts == nil:
		return fmt.Errorf("karpenter version %s is not supported (supported: %s to %s)",
			e.Version, facts.Oldest().Minor, facts.Newest().Minor)
	}
	return nil
}

// Release parses a Karpenter release version ("1.2.3") and finds the row
// of its minor (nil when karpgen has none): the one place versions are
// parsed.
func Release(version string) (facts.Version, *facts.Minor, error) {
	v, err := facts.ParseVersion(version)
	if err != nil {
		return v, nil, err
	}
	m, _ := facts.Lookup(v)
	return v, m, nil
}

// KubernetesRangeOf is the Kubernetes range a Karpenter version supports;
// ok is false when the version is malformed or not supported.
func KubernetesRangeOf(version string) (rng [2]string, ok bool) {
	v, m, err := Release(version)
	if err != nil || m == nil {
		return rng, false
	}
	return facts.KubernetesRange(v, m), true
}

// KubernetesRange is the Kubernetes range the exact Karpenter version
// supports; ok is false without facts.
func (e *Env) KubernetesRange() (rng [2]string, ok bool) {
	if e.Facts == nil {
		return rng, false
	}
	return facts.KubernetesRange(e.Version, e.Facts), true
}

// MinorOf returns the minor ("1.4") of a release version, and an error
// for a version that is malformed or that karpgen has no chart of.
func MinorOf(version string) (string, error) {
	v, m, err := Release(version)
	if err != nil {
		return "", err
	}
	if m == nil && facts.ChartValues(v.MinorString()) == nil {
		return "", fmt.Errorf("karpgen has no facts of Karpenter %s (it knows %s to %s, and %s)", v, facts.Oldest().Minor, facts.Newest().Minor, facts.Beta.Minor)
	}
	return v.MinorString(), nil
}

// Newest is the newest Karpenter minor karpgen knows that runs on the
// cluster's Kubernetes version; nil when none does.
func (e *Env) Newest() *facts.Minor {
	k := e.Profile.Cluster.KubernetesVersion
	var newest *facts.Minor
	for i := range facts.Minors {
		m := &facts.Minors[i]
		if !facts.MinorLess(k, m.Kubernetes[0]) && !facts.MinorLess(m.Kubernetes[1], k) {
			newest = m
		}
	}
	return newest
}

// SameInputs says whether two environments render the same bundle. A
// bundle is a pure function of the profile: everything else of an Env is
// derived from it, and the guardrails feed only the rule catalog.
func (e *Env) SameInputs(o *Env) bool { return reflect.DeepEqual(e.Profile, o.Profile) }
