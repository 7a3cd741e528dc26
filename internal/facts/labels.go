package facts

// Well-known labels Kubernetes, Karpenter and Karpenter's AWS provider set
// on nodes, which a profile's shorthand fields and the instance-type
// table speak of (upstream's well_known_labels and v1 labels).
const (
	KeyArch         = "kubernetes.io/arch"
	KeyOS           = "kubernetes.io/os"
	KeyCapacityType = "karpenter.sh/capacity-type"
	KeyZone         = "topology.kubernetes.io/zone"
	KeyCategory     = "karpenter.k8s.aws/instance-category"
	KeyFamily       = "karpenter.k8s.aws/instance-family"
	KeyGeneration   = "karpenter.k8s.aws/instance-generation"
	KeyCPU          = "karpenter.k8s.aws/instance-cpu"
	KeySize         = "karpenter.k8s.aws/instance-size"
	KeyInstanceType = "node.kubernetes.io/instance-type"
	// KeyHostname is the node's own name: a topology of one node.
	KeyHostname = "kubernetes.io/hostname"
)
