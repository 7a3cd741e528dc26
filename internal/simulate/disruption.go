package simulate

import (
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/karpgen/karpgen/internal/doctor/live"
	"github.com/karpgen/karpgen/internal/model"
	"github.com/karpgen/karpgen/internal/simulate/wire"
)

// The disruption view's answer, as package wire declares it.
type (
	Disruption  = wire.Disruption
	Command     = wire.Command
	NodeVerdict = wire.NodeVerdict
	Reason      = wire.Reason
)

// NewDisruptionRequest is the request that asks what Karpenter's
// disruption controller does with a captured cluster: the environment's
// pools as rendered (nodePools), its instance types priced at prices,
// and the capture's objects, decided at their time.
func NewDisruptionRequest(e *model.Env, nodePools []byte, prices Prices, objs *live.Objects) (*Request, error) {
	req, err := NewRequest(e, nodePools, nil, prices)
	if err != nil {
		return nil, err
	}
	req.Cluster = &wire.Cluster{
		Now:          objs.Time.UTC().Format(time.RFC3339),
		FeatureGates: FeatureGates(e),
		Files:        wire.ClusterFiles{Nodes: live.FileNodes, NodeClaims: live.FileNodeClaims, Pods: live.FilePods, PDBs: live.FilePDBs, DaemonSets: live.FileWorkloads},
		Nodes:        objs.Nodes, NodeClaims: objs.NodeClaims, Pods: objs.Pods, PDBs: objs.PDBs, DaemonSets: objs.DaemonSets,
	}
	return req, nil
}

// FeatureGates are Karpenter's --feature-gates as the environment's
// chart sets them: each gate of its version the chart gives a value,
// the profile's where it sets one ("NodeRepair=false,...").
func FeatureGates(e *model.Env) string {
	gates := map[string]bool{}
	for _, g := range e.Facts.FeatureGates {
		v, set := e.Profile.Karpenter.FeatureGates[g.Name]
		if !set {
			if g.Unset {
				continue
			}
			v = g.Default
		}
		gates[flagName(g.Name)] = v
	}
	var out []string
	for _, name := range slices.Sorted(maps.Keys(gates)) {
		out = append(out, name+"="+strconv.FormatBool(gates[name]))
	}
	return strings.Join(out, ",")
}

// flagName is a chart's gate as the controller's flag names it
// (spotToSpotConsolidation → SpotToSpotConsolidation).
func flagName(chart string) string {
	if chart == "" {
		return chart
	}
	r := []rune(chart)
	r[0] = unicode.ToUpper(r[0])
	return string(r)
}

// DisruptionReport is what Karpenter's disruption controller would do
// with a captured cluster, with what its nodes cost.
type DisruptionReport struct {
	Env string `json:"env"`
	Disruption
	// Saved is what the commands save an hour: the nodes they remove
	// less their replacements.
	Saved    float64 `json:"saved"`
	Currency string  `json:"currency,omitempty"`
	// Prices says where the prices come from.
	Prices string `json:"prices"`
	// Kept counts the nodes no command removes.
	Kept int `json:"kept"`
}

// NewDisruptionReport is the report of a disruption answer.
func NewDisruptionReport(env string, prices Prices, d *Disruption) *DisruptionReport {
	r := &DisruptionReport{Env: env, Disruption: *d, Currency: prices.Currency, Prices: prices.Source}
	for _, c := range d.Commands {
		r.Saved += c.Price - c.Replaced
	}
	for _, v := range d.Nodes {
		if v.Command == 0 {
			r.Kept++
		}
	}
	return r
}
