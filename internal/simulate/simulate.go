// Package simulate places a team's workloads on an environment with
// Karpenter's own scheduler. karpgen builds the request here: the
// environment's NodePools as rendered, the node groups the profile
// keeps, the instance types its node classes may launch (with what a
// node of each offers pods, by the AWS provider's rules) and the
// workloads as written. karpgen-simulate (the simulate/ module) runs
// sigs.k8s.io/karpenter's scheduling simulation on it as a library and
// answers where each workload's pods land, or why they stay Pending in
// upstream's words. The scheduler stays out of karpgen's own binary,
// whose start it would slow several times over.
package simulate

import "github.com/karpgen/karpgen/internal/simulate/wire"

// The request and the answer, as package wire declares them.
type (
	Request      = wire.Request
	Response     = wire.Response
	Workload     = wire.Workload
	NodeGroup    = wire.NodeGroup
	Taint        = wire.Taint
	InstanceType = wire.InstanceType
	Offering     = wire.Offering
	Placement    = wire.Placement
	Node         = wire.Node
	AskedPool    = wire.AskedPool
)
