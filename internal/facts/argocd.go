package facts

// Chart is what a minor's karpenter chart creates with the values karpgen
// writes: the kinds, as "group/Kind" ("/Kind" for the core API group),
// and the namespaces it writes to besides the release's. The Argo CD
// AppProject karpgen writes allows exactly these (TestAppProjectMatchesChart
// renders each minor's chart to hold the rows to it).
type Chart struct {
	ClusterKinds, NamespacedKinds []string
	Namespaces                    []string
}

var (
	chartCluster = []string{"rbac.authorization.k8s.io/ClusterRole", "rbac.authorization.k8s.io/ClusterRoleBinding"}
	chart11      = Chart{
		ClusterKinds: chartCluster,
		NamespacedKinds: []string{"/Service", "/ServiceAccount", "apps/Deployment", "policy/PodDisruptionBudget",
			"rbac.authorization.k8s.io/Role", "rbac.authorization.k8s.io/RoleBinding"},
		Namespaces: []string{"kube-system"},
	}
	// 1.0 keeps the conversion webhook's certificate in a Secret and
	// reads leases of kube-node-lease.
	chart10 = Chart{
		ClusterKinds: chartCluster,
		NamespacedKinds: []string{"/Secret", "/Service", "/ServiceAccount", "apps/Deployment", "policy/PodDisruptionBudget",
			"rbac.authorization.k8s.io/Role", "rbac.authorization.k8s.io/RoleBinding"},
		Namespaces: []string{"kube-node-lease", "kube-system"},
	}
)
