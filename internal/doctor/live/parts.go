package live

// Part is a part of a capture the plans read. A plan asks Knows(part):
// the constants are the only parts, so a misspelt one does not compile
// into a part that is silently never known.
type Part string

// The parts of a capture, each read from the files Parts names.
const (
	PartAuth         Part = "auth"
	PartHelm         Part = "helm"
	PartTracking     Part = "tracking"
	PartApplication  Part = "application"
	PartNodeGroups   Part = "nodegroups"
	PartNodes        Part = "nodes"
	PartPDBs         Part = "pdbs"
	PartNetwork      Part = "network"
	PartWorkloads    Part = "workloads"
	PartAssociations Part = "associations"
	PartPrices       Part = "prices"
)

// The files the capture script writes and the plans read, one name each
// for the script that writes it and the reader that reads it. A file of
// each node group, launch template and association is named by its
// prefix and the group's name or association's ID.
const (
	FileEKSCluster            = "eks-cluster.json"
	FileHelmReleases          = "helm-releases.json"
	FileKarpenterDeployment   = "k8s-karpenter-deployment.json"
	FileKarpenterSA           = "k8s-karpenter-serviceaccount.json"
	FileArgoCDApplication     = "argocd-application.json"
	FileNodeClaims            = "k8s-nodeclaims.json"
	FilePDBs                  = "k8s-pdbs.json"
	FileNodes                 = "k8s-nodes.json"
	FilePods                  = "k8s-pods.json"
	FileCaptureTime           = "capture-time.json"
	FileSubnets               = "ec2-subnets.json"
	FileSecurityGroups        = "ec2-security-groups.json"
	FileWorkloads             = "k8s-workloads.json"
	FileOnDemandPrices        = "pricing-ec2-on-demand.json"
	FileOnDemandMetalPrices   = "pricing-ec2-on-demand-metal.json"
	FileSpotPrices            = "ec2-spot-prices.json"
	PrefixNodeGroup           = "eks-nodegroup-"
	PrefixLaunchTemplate      = "ec2-launch-template-"
	PrefixAssociation         = "eks-pod-identity-association-"
	suffixJSON                = ".json"
	FilePodIdentityAssocsList = "eks-pod-identity-associations.json"
)

// PerItem is the file of one node group's, launch template's or
// association's capture: its prefix and name.
func PerItem(prefix, name string) string { return prefix + name + suffixJSON }

// PartInfo is what a part is read from, and what a plan says it assumes
// when the capture does not hold it.
type PartInfo struct {
	Files   []string
	Assumed string
}

// Parts are every part with its files and the assumption that stands in
// for it.
var Parts = map[Part]PartInfo{
	PartAuth:         {[]string{FileEKSCluster}, "the cluster's authentication mode is API_AND_CONFIG_MAP or API (the capture holds none)"},
	PartHelm:         {[]string{FileHelmReleases}, "the Helm releases are those of the bundle (the capture lists none)"},
	PartTracking:     {[]string{FileKarpenterDeployment}, "no Argo CD Application tracks the controller's Deployment (the capture holds no Deployment)"},
	PartApplication:  {[]string{FileArgoCDApplication}, "the bundle's Argo CD Application exists as rendered (the capture holds none)"},
	PartNodeGroups:   {[]string{PerItem(PrefixNodeGroup, "*")}, "the node groups' subnets, roles and sizes are read by the commands when they run (the capture holds no node group)"},
	PartNodes:        {[]string{FileNodeClaims}, "no node of Karpenter's runs yet (the capture holds no NodeClaims)"},
	PartPDBs:         {[]string{FilePDBs}, "no PodDisruptionBudget holds a drain (the capture holds none)"},
	PartNetwork:      {[]string{FileSubnets, FileSecurityGroups}, "nothing owns the subnets and security groups but what the profile declares (the capture holds no tags of them)"},
	PartWorkloads:    {[]string{FileWorkloads}, "Cluster Autoscaler is deployed by hand (the capture holds no workloads)"},
	PartAssociations: {[]string{PerItem(PrefixAssociation, "*")}, "the Pod Identity associations bind the roles the bundle names (the capture describes none)"},
	PartPrices:       {[]string{FileOnDemandPrices, FileOnDemandMetalPrices, FileSpotPrices}, "the prices are Karpenter's shipped tables' (the capture holds none of the region's)"},
}

// Knows says whether the capture held a part.
func (c *Cluster) Knows(part Part) bool {
	if c == nil {
		return false
	}
	for _, p := range c.Known {
		if p == part {
			return true
		}
	}
	return false
}

// Know records that the capture held a part, once.
func (c *Cluster) Know(part Part) {
	if !c.Knows(part) {
		c.Known = append(c.Known, part)
	}
}

// Assumptions are what a plan that reads parts assumes of those the
// capture does not hold (all of them without a capture), in their order.
func Assumptions(c *Cluster, parts ...Part) []string {
	var out []string
	for _, p := range parts {
		if !c.Knows(p) {
			out = append(out, Parts[p].Assumed)
		}
	}
	return out
}
