package generators

import (
	"maps"
	"slices"
	"strconv"

	"github.com/karpgen/karpgen/internal/budget"
	"github.com/karpgen/karpgen/internal/facts/instancetypes"
	"github.com/karpgen/karpgen/internal/profile"
)

// Names of the objects karpgen writes (the requirement keys are the
// model's).
const (
	keyNodePool      = "karpenter.sh/nodepool"
	nodeClassGroup   = "karpenter.k8s.aws"
	nodeClassKind    = "EC2NodeClass"
	nodePoolVersion  = "karpenter.sh/v1"
	nodeClassVersion = "karpenter.k8s.aws/v1"
)

// NodePools returns the NodePool objects, sorted by name.
func NodePools(p *profile.Profile) []any {
	out := make([]any, 0, len(p.NodePools))
	for _, name := range slices.Sorted(maps.Keys(p.NodePools)) {
		np := p.NodePools[name]
		np.Disruption.Budgets = UTCBudgets(p, np.Disruption.Budgets)
		out = append(out, nodePool(name, np))
	}
	return out
}

// UTCBudgets are a pool's budgets as Karpenter reads them: with the
// profile's timeZone, each schedule rewritten from local time to UTC
// (budget.ToUTC).
func UTCBudgets(p *profile.Profile, budgets []profile.Budget) []profile.Budget {
	if p.TimeZone == "" {
		return budgets
	}
	loc, err := budget.Zone(p.TimeZone)
	if err != nil {
		panic("generators: " + err.Error()) // vet's value/time-zone refuses it first
	}
	var out []profile.Budget
	for _, b := range budgets {
		c, err := budget.ToUTC(b, loc)
		if err != nil {
			panic("generators: " + err.Error()) // vet's value/time-zone refuses it first
		}
		out = append(out, c.UTC...)
	}
	return out
}

// nodePoolSpec is a NodePool's spec as karpgen writes it: the CRD's
// names, an empty field left out.
type nodePoolSpec struct {
	Disruption profile.Disruption `json:"disruption"`
	Limits     map[string]any     `json:"limits,omitempty"`
	Replicas   *int               `json:"replicas,omitempty"`
	Template   nodeClaimTemplate  `json:"template"`
	Weight     *int               `json:"weight,omitempty"`
}

type nodeClaimTemplate struct {
	Metadata templateMetadata `json:"metadata,omitempty"`
	Spec     nodeClaimSpec    `json:"spec"`
}

type templateMetadata struct {
	Annotations map[string]string `json:"annotations,omitempty"`
	Labels      map[string]string `json:"labels,omitempty"`
}

type nodeClaimSpec struct {
	ExpireAfter            string          `json:"expireAfter"`
	NodeClassRef           nodeClassRef    `json:"nodeClassRef"`
	Requirements           []any           `json:"requirements"`
	StartupTaints          []profile.Taint `json:"startupTaints,omitempty"`
	Taints                 []profile.Taint `json:"taints,omitempty"`
	TerminationGracePeriod string          `json:"terminationGracePeriod,omitempty"`
}

type nodeClassRef struct {
	Group string `json:"group"`
	Kind  string `json:"kind"`
	Name  string `json:"name"`
}

func nodePool(name string, np profile.NodePool) obj {
	spec := nodePoolSpec{
		Disruption: np.Disruption,
		Limits:     np.Limits,
		Replicas:   np.Replicas,
		Weight:     np.Weight,
		Template: nodeClaimTemplate{
			Metadata: templateMetadata{Annotations: np.Annotations, Labels: np.Labels},
			Spec: nodeClaimSpec{
				ExpireAfter:            np.ExpireAfter,
				NodeClassRef:           nodeClassRef{Group: nodeClassGroup, Kind: nodeClassKind, Name: np.NodeClass},
				Requirements:           Requirements(np),
				StartupTaints:          np.StartupTaints,
				Taints:                 np.Taints,
				TerminationGracePeriod: np.TerminationGracePeriod,
			},
		},
	}
	return obj{
		"apiVersion": nodePoolVersion,
		"kind":       "NodePool",
		"metadata":   obj{"name": name},
		"spec":       plain(spec),
	}
}

// Requirements are a pool's scheduling requirements as the NodePool
// writes them (instancetypes.Requirements), with minValues.
func Requirements(np profile.NodePool) []any {
	return plain(instancetypes.Requirements(np)).([]any)
}

func itoa(xs []int) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = strconv.Itoa(x)
	}
	return out
}
