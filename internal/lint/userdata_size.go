package lint

import (
	"slices"
	"strings"

	"github.com/karpgen/karpgen/internal/profile"
)

// maxUserData is what EC2 accepts as an instance's user data, counted
// before base64: a launch with more is refused.
const maxUserData = 16 << 10

// Karpenter merges a node class's userData with its own part: for AL2023
// a NodeConfig in a MIME archive, for AL2 a bootstrap.sh call, for
// Bottlerocket TOML settings, for Windows a PowerShell call
// (pkg/providers/amifamily/bootstrap of the AWS provider). Each names the
// cluster, its API endpoint and its certificate authority, the cluster
// DNS address and maxPods, and passes the node's labels and taints.
// karpgen cannot know the endpoint or the certificate, but their sizes
// are EKS's own: an endpoint of 32 hexadecimal digits, a cell and the
// region's domain, and a 2,048-bit certificate in PEM, base64-encoded.
const (
	caBytes       = 1468 // base64 of an EKS cluster's CA certificate in PEM
	endpointFixed = len("https://") + 32 + len(".gr7.") + len(".eks.amazonaws.com")
)

// framing is the size of the text Karpenter's part has whatever the
// cluster: the MIME archive and NodeConfig skeleton, the bootstrap.sh
// command line, the TOML tables, the PowerShell call; rounded up.
var framing = map[string]int{"al2023": 700, "al2": 600, "bottlerocket": 450, "windows2019": 600, "windows2022": 600, "windows2025": 600}

// karpenterPart is about how many bytes Karpenter adds to the userData of
// nodes of a pool: its fixed text, the cluster's names, and the pool's
// labels (with karpenter.sh/nodepool and, for a single capacity type,
// karpenter.sh/capacity-type) and taints. Labels in the domains the node
// restriction admission refuses are left out, as Karpenter leaves them.
func karpenterPart(family string, p *profile.Profile, pool string, np profile.NodePool) int {
	n := framing[family] + caBytes + endpointFixed + len(p.Cluster.Region) + len(p.Cluster.Name)
	labels := map[string]string{"karpenter.sh/nodepool": pool}
	for k, v := range np.Labels {
		labels[k] = v
	}
	if len(np.CapacityTypes) == 1 {
		labels["karpenter.sh/capacity-type"] = np.CapacityTypes[0]
	}
	for k, v := range labels {
		d := domain(k)
		if slices.ContainsFunc([]string{"kubernetes.io", "k8s.io"}, func(r string) bool { return d == r || strings.HasSuffix(d, "."+r) }) {
			continue
		}
		n += len(k) + len(v) + 2
	}
	for _, t := range slices.Concat(np.Taints, np.StartupTaints) {
		n += len(t.Key) + len(t.Value) + len(t.Effect) + 40 // a taint's YAML or flag around it
	}
	return n
}

// userDataSize reports a node class whose userData, with what Karpenter
// adds for the pool with the most to add, passes what EC2 accepts.
func (c *Context) userDataSize(class string, nc profile.NodeClass) {
	if nc.UserData == "" {
		return
	}
	family := amiFamily(nc.AMI)
	worst, worstPool := 0, ""
	for pool, np := range c.pools() {
		if np.NodeClass != class {
			continue
		}
		if n := karpenterPart(family, c.P, pool, np); n > worst {
			worst, worstPool = n, pool
		}
	}
	if worstPool == "" {
		worst = karpenterPart(family, c.P, "", profile.NodePool{})
	}
	total := len(nc.UserData) + worst
	if total <= maxUserData {
		return
	}
	for_ := ""
	if worstPool != "" {
		for_ = " for pool " + worstPool
	}
	c.Report(at("nodeClasses", field(class), "userData"),
		"shorten userData, or move what it installs into the AMI or a DaemonSet",
		"node class %q: userData is %d bytes, and with the about %d bytes Karpenter adds%s (its %s bootstrap with the cluster's endpoint and certificate, the labels and taints) a node's user data is about %d bytes, more than the %d EC2 accepts: every launch from it fails",
		class, len(nc.UserData), worst, for_, familyName(family), total, maxUserData)
}
