// Package wire is what karpgen and karpgen-simulate say to each other:
// the request karpgen builds (package simulate) and the answer the
// scheduler gives. It imports nothing, so that karpgen-simulate carries
// none of karpgen but these types.
package wire

// Protocol names this version of the request and the answer. karpgen
// sends it, and karpgen-simulate answers only a request of its own
// protocol, naming it in the answer: a karpgen-simulate of another
// release, or anything else called karpgen-simulate, is refused rather
// than believed. Change it with any change of these types.
const Protocol = "karpgen-simulate/2"

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
}

// NodeGroup is a managed node group: its nodes' labels and taints.
type NodeGroup struct {
	Name   string            `json:"name"`
	Labels map[string]string `json:"labels"`
	Taints []Taint           `json:"taints"`
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
	YAML string `json:"yaml"`
}

// Response is what karpgen-simulate writes on its standard output.
type Response struct {
	// Protocol is the helper's Protocol, the request's own.
	Protocol string `json:"protocol"`
	// Workloads are the placements, one for each workload of the
	// request, in its order.
	Workloads []Placement `json:"workloads"`
	// Nodes are the nodes Karpenter would launch.
	Nodes []Node `json:"nodes"`
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
	// Pending are its pods no node takes, by upstream's reason.
	Pending map[string]int `json:"pending,omitempty"`
	// GroupOnly are its pods that ask for no node group but that an
	// untainted one would run while it has room, and for which Karpenter
	// launches nothing: by "group: upstream's reason".
	GroupOnly map[string]int `json:"groupOnly,omitempty"`
}

// Node is one node Karpenter would launch.
type Node struct {
	NodePool string `json:"nodePool"`
	// InstanceTypes are the types it may be, cheapest first (Karpenter
	// passes them all to EC2's CreateFleet).
	InstanceTypes []string `json:"instanceTypes"`
	// Requests are the resources its pods and DaemonSets request.
	Requests map[string]string `json:"requests"`
	// Pods is how many of the workloads' pods it runs.
	Pods int `json:"pods"`
}
