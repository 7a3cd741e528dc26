// Package wire is what karpgen and karpgen-simulate say to each other:
// the request karpgen builds (package simulate) and the answer the
// scheduler gives. It imports nothing of karpgen's, so that
// karpgen-simulate carries none of karpgen but these types.
package wire

import "encoding/json"

// Protocol names this version of the request and the answer. karpgen
// sends it, and karpgen-simulate answers only a request of its own
// protocol, naming it in the answer: a karpgen-simulate of another
// release, or anything else called karpgen-simulate, is refused rather
// than believed. Change it with any change of these types.
const Protocol = "karpgen-simulate/4"

// Request is what karpgen-simulate reads on its standard input.
type Request struct {
	// Protocol is the sender's Protocol.
	Protocol string `json:"protocol"`
	// NodePools are the environment's NodePool manifests as rendered
	// (nodepools.yaml).
	NodePools string `json:"nodePools"`
	// NodeGroups are the managed node groups the profile keeps.
	NodeGroups []NodeGroup `json:"nodeGroups"`
	// InstanceTypes are, per node class, the instance types its pools
	// may launch: every type the tables know, with what a node of it
	// offers under the class's settings; each NodePool's own
	// requirements choose among them as Karpenter does.
	InstanceTypes map[string][]InstanceType `json:"instanceTypes"`
	// WellKnownLabels are the provider's labels Karpenter knows values
	// of (karpenter.k8s.aws/...), registered as the provider does.
	WellKnownLabels []string `json:"wellKnownLabels"`
	// Workloads are the manifests to place, one a document.
	Workloads []Workload `json:"workloads"`
	// Volumes are the PersistentVolumes, PersistentVolumeClaims and
	// StorageClasses read with the workloads, one a document.
	Volumes []Workload `json:"volumes,omitempty"`
	// Cluster, when given, is a captured cluster whose disruption is
	// decided instead of placing Workloads: the NodePools are the
	// profile's, the nodes and their pods the capture's.
	Cluster *Cluster `json:"cluster,omitempty"`
}

// Cluster is what a capture holds of a running cluster, each object as
// kubectl prints it (an item of its -o json list).
type Cluster struct {
	// Now is the time the decision is made at, RFC 3339: budgets'
	// schedules and consolidateAfter are read at it.
	Now string `json:"now"`
	// FeatureGates are Karpenter's --feature-gates as the profile sets
	// them ("SpotToSpotConsolidation=true"), "" for its defaults.
	FeatureGates string `json:"featureGates,omitempty"`
	// Files name where each list was read, for messages.
	Files      ClusterFiles      `json:"files"`
	Nodes      []json.RawMessage `json:"nodes"`
	NodeClaims []json.RawMessage `json:"nodeClaims"`
	Pods       []json.RawMessage `json:"pods"`
	PDBs       []json.RawMessage `json:"pdbs"`
	// DaemonSets are the cluster's DaemonSets: the pods a replacement
	// node would run besides those it takes over.
	DaemonSets []json.RawMessage `json:"daemonSets"`
}

// ClusterFiles are the captured files a Cluster was read from.
type ClusterFiles struct {
	Nodes, NodeClaims, Pods, PDBs, DaemonSets string
}

// NodeGroup is a managed node group: its nodes' labels and taints.
type NodeGroup struct {
	Name   string            `json:"name"`
	Labels map[string]string `json:"labels"`
	Taints []Taint           `json:"taints"`
	// InstanceType, Size and Allocatable, when the profile gives the
	// group's type and size: its nodes and what each offers pods (by
	// resource name). Without Size the group is taken to have room for
	// every pod that asks for it.
	InstanceType string            `json:"instanceType,omitempty"`
	Size         *int              `json:"size,omitempty"`
	Allocatable  map[string]string `json:"allocatable,omitempty"`
}

// Taint is a node taint.
type Taint struct {
	Key    string `json:"key"`
	Value  string `json:"value,omitempty"`
	Effect string `json:"effect"`
}

// InstanceType is one instance type as the scheduler sees it.
type InstanceType struct {
	Name string `json:"name"`
	// Labels are the type's labels (architecture, OS, family, size,
	// CPU, memory, GPU...).
	Labels map[string]string `json:"labels"`
	// Capacity and Overhead are quantities by resource name; the
	// scheduler places pods on their difference.
	Capacity map[string]string `json:"capacity"`
	Overhead map[string]string `json:"overhead"`
	// Offerings are where and how it may launch.
	Offerings []Offering `json:"offerings"`
}

// Offering is an instance type in a zone and a capacity type, with the
// price the scheduler orders by.
type Offering struct {
	Zone         string  `json:"zone"`
	CapacityType string  `json:"capacityType"`
	Price        float64 `json:"price"`
}

// Workload is one manifest: a Deployment, StatefulSet, ReplicaSet, Job,
// DaemonSet or Pod, as YAML, with where it was read.
type Workload struct {
	File string `json:"file"`
	Line int    `json:"line"`
	Kind string `json:"kind"`
	YAML string `json:"yaml"`
}

// Response is what karpgen-simulate writes on its standard output.
type Response struct {
	// Protocol is the helper's Protocol, the request's own.
	Protocol string `json:"protocol"`
	// Workloads are the placements, one for each workload of the
	// request, in its order.
	Workloads []Placement `json:"workloads"`
	// Nodes are the nodes Karpenter would launch, in the order it
	// launches them.
	Nodes []Node `json:"nodes"`
	// Rounds is how many rounds of scheduling the cluster took to
	// settle: each places what it can, its nodes launch and its pods
	// bind, and the next schedules what is left.
	Rounds int `json:"rounds"`
	// Assumed says what the simulation took for what the workloads do
	// not say (a StorageClass they name but do not hold), one sentence
	// each.
	Assumed []string `json:"assumed,omitempty"`
	// Disruption is the answer to a request with a Cluster.
	Disruption *Disruption `json:"disruption,omitempty"`
}

// Disruption is what Karpenter's disruption controller would do with the
// captured cluster now: the commands of the one method that acts this
// round, and why every other node of Karpenter's stays.
type Disruption struct {
	// Now is the time it was decided at.
	Now string `json:"now"`
	// Commands are the commands Karpenter starts this round, all of one
	// method (upstream starts one method's commands a round).
	Commands []Command `json:"commands"`
	// Nodes are Karpenter's nodes, by name.
	Nodes []NodeVerdict `json:"nodes"`
	// Others counts the nodes Karpenter does not manage (node groups).
	Others int `json:"others"`
}

// Command is one disruption command: the nodes it removes and the nodes
// it launches in their place.
type Command struct {
	// Reason is upstream's disruption reason: Empty, Drifted or
	// Underutilized.
	Reason string `json:"reason"`
	// Method is upstream's name of the method: emptiness, drift,
	// multi-node or single-node consolidation.
	Method string `json:"method"`
	// Decision is delete or replace.
	Decision string `json:"decision"`
	// Nodes are the candidates it removes, by node name.
	Nodes []string `json:"nodes"`
	// Replacements are the nodes launched in their place.
	Replacements []Replacement `json:"replacements,omitempty"`
	// Price is what the removed nodes cost an hour, Replaced what the
	// replacements do.
	Price    float64 `json:"price"`
	Replaced float64 `json:"replaced"`
}

// Replacement is a node a command launches: the offering the AWS
// provider takes for it (the cheapest the NodeClaim allows), and how
// many instance types the NodeClaim allows.
type Replacement struct {
	NodePool     string  `json:"nodePool"`
	InstanceType string  `json:"instanceType"`
	Zone         string  `json:"zone"`
	CapacityType string  `json:"capacityType"`
	Price        float64 `json:"price"`
	Options      int     `json:"options"`
}

// NodeVerdict is one node of Karpenter's and what the disruption
// controller makes of it.
type NodeVerdict struct {
	Name         string  `json:"name"`
	NodeClaim    string  `json:"nodeClaim"`
	NodePool     string  `json:"nodePool"`
	InstanceType string  `json:"instanceType"`
	Zone         string  `json:"zone"`
	CapacityType string  `json:"capacityType"`
	Price        float64 `json:"price"`
	// Pods counts the pods it runs that would move (not DaemonSets').
	Pods int `json:"pods"`
	// Command is the index+1 of the command that removes it, 0 for none.
	Command int `json:"command,omitempty"`
	// Drifted is the reason it has drifted, as the NodeClaim disruption
	// controller finds it ("" when it has not).
	Drifted string `json:"drifted,omitempty"`
	// Reasons say, in upstream's words, why no command removes it now,
	// and what would change that; empty for a node a command removes.
	Reasons []Reason `json:"reasons,omitempty"`
}

// Reason is one thing that keeps a node.
type Reason struct {
	// Kind is what the reason is about: doNotDisrupt, pdb, budget,
	// consolidateAfter, policy, fits, spotToSpot, minValues, cheaper,
	// drift (it waits its turn), node, or later: by itself it would go,
	// in a later round.
	Kind string `json:"kind"`
	// Upstream is what Karpenter says (its event's message), Fix what
	// would let it go.
	Upstream string `json:"upstream"`
	Fix      string `json:"fix,omitempty"`
}

// Placement is where one workload's pods land.
type Placement struct {
	Kind      string `json:"kind"`
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	// Pods is how many pods it asks for (a DaemonSet's are counted on
	// every node instead).
	Pods int `json:"pods"`
	// DaemonSet: its pods run on every node they tolerate and are the
	// overhead of the nodes Karpenter sizes.
	DaemonSet bool `json:"daemonSet,omitempty"`
	// NodeGroups are the kept node groups that take its pods, by name,
	// with how many.
	NodeGroups map[string]int `json:"nodeGroups,omitempty"`
	// Nodes are the indexes (in Response.Nodes) of the nodes its pods
	// land on, with how many each.
	Nodes map[int]int `json:"nodes,omitempty"`
	// Rounds is the round its last pod was placed in.
	Rounds int `json:"rounds,omitempty"`
	// Pending are its pods no node takes once the cluster settles, by
	// upstream's reason in the last round.
	Pending map[string]int `json:"pending,omitempty"`
	// Asks are the pools its pods' selectors and required affinity let
	// them use (a pool's labels and requirements allow them), with each
	// pool's taints they do not tolerate, for the pods that stay
	// Pending: the fix is the asked pool's, never another's.
	Asks []AskedPool `json:"asks,omitempty"`
	// GroupOnly are its pods that ask for no node group but that an
	// untainted one would run while it has room, and for which Karpenter
	// launches nothing: by "group: upstream's reason".
	GroupOnly map[string]int `json:"groupOnly,omitempty"`
}

// AskedPool is a pool a workload's pods may use, and what keeps them off
// it whatever its limits allow: the pool's taints they do not tolerate,
// and the zones their volumes are bound to when the pool reaches none.
type AskedPool struct {
	Pool        string   `json:"pool"`
	Untolerated []Taint  `json:"untolerated,omitempty"`
	VolumeZones []string `json:"volumeZones,omitempty"`
}

// Node is one node Karpenter would launch: the offering the AWS
// provider takes for it.
type Node struct {
	NodePool     string `json:"nodePool"`
	InstanceType string `json:"instanceType"`
	Zone         string `json:"zone"`
	CapacityType string `json:"capacityType"`
	// Price is its offering's price an hour as the request gives it
	// (NodeOverlays' adjustments applied).
	Price float64 `json:"price"`
	// Round is the round of scheduling that launched it.
	Round int `json:"round"`
	// Requests are the resources its pods and DaemonSets request.
	Requests map[string]string `json:"requests"`
	// Pods is how many of the workloads' pods it runs, Daemons how many
	// of their DaemonSets'.
	Pods    int `json:"pods"`
	Daemons int `json:"daemons,omitempty"`
}
