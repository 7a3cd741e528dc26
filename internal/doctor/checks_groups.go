package doctor

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/karpgen/karpgen/internal/diag"
	"github.com/karpgen/karpgen/internal/util/escape"
)

// groupChecks compare the managed node groups the profile keeps, and
// what holds the nodes' disruption, with the cluster.
var groupChecks = []*Check{
	{
		ID: "doctor/node-groups", Severity: diag.Error,
		Summary: "Every managed node group the profile keeps (nodeGroups) exists, with the profile's labels and taints: the controller and the add-ons are placed by them.",
		run: func(c *checkRun) {
			n := c.e.Names
			var list struct {
				Nodegroups []string `json:"nodegroups"`
			}
			if !c.load("eks-nodegroups.json", &list, "cluster "+n.Cluster, "its managed node groups", "") {
				return
			}
			for _, g := range slices.Sorted(maps.Keys(c.e.Profile.NodeGroups)) {
				want := c.e.Profile.NodeGroups[g]
				if !slices.Contains(list.Nodegroups, g) && !c.dry {
					c.report("node group "+g, "present (SUMMARY.md's steps create it)", "absent",
						escape.ShellJoin("aws", "eks", "create-nodegroup", "--cluster-name", n.Cluster, "--nodegroup-name", g, "--labels", labelArg(want.Labels))+" with the node role, subnets and fixed sizes of your groups")
					continue
				}
				var d struct {
					Nodegroup struct {
						Labels       map[string]string `json:"labels"`
						CapacityType string            `json:"capacityType"`
						Taints       []struct {
							Key, Value, Effect string
						} `json:"taints"`
					} `json:"nodegroup"`
				}
				if !c.load("eks-nodegroup-"+g+".json", &d, "node group "+g, "its labels and taints", "") || c.dry {
					continue
				}
				for _, k := range slices.Sorted(maps.Keys(want.Labels)) {
					// describe-nodegroup lists the labels a user set; EKS
					// puts its own on every node and refuses them as
					// labels of the group.
					if have, ours := eksNodeLabel(k, g, d.Nodegroup.CapacityType); ours {
						if have != want.Labels[k] {
							c.report("node group "+g, "label "+k+"="+want.Labels[k], k+"="+orNone(have)+" (set by EKS on every node of the group)",
								"EKS sets "+k+" itself: select the group by "+k+"="+orNone(have)+" in the profile")
						}
						continue
					}
					if have, ok := d.Nodegroup.Labels[k]; !ok || have != want.Labels[k] {
						if reservedLabel(k) {
							c.report("node group "+g, "label "+k+"="+want.Labels[k], orNone(have),
								"EKS refuses node group labels under kubernetes.io/, k8s.io/ and eks.amazonaws.com/: select the group by a label of its own")
							continue
						}
						c.report("node group "+g, "label "+k+"="+want.Labels[k], orNone(have),
							escape.ShellJoin("aws", "eks", "update-nodegroup-config", "--cluster-name", n.Cluster, "--nodegroup-name", g, "--labels", "addOrUpdateLabels={"+k+"="+want.Labels[k]+"}"))
					}
				}
				var have []string
				for _, t := range d.Nodegroup.Taints {
					have = append(have, t.Key+"="+t.Value+":"+t.Effect)
				}
				for _, t := range want.Taints {
					w := t.Key + "=" + t.Value + ":" + eksEffect(t.Effect)
					if !slices.Contains(have, w) {
						c.report("node group "+g, "taint "+w, orNone(strings.Join(have, ", ")),
							escape.ShellJoin("aws", "eks", "update-nodegroup-config", "--cluster-name", n.Cluster, "--nodegroup-name", g,
								"--taints", fmt.Sprintf("addOrUpdateTaints=[{key=%s,value=%s,effect=%s}]", t.Key, t.Value, eksEffect(t.Effect))))
					}
				}
			}
		},
	},
	{
		ID: "doctor/disruption-budgets", Severity: diag.Warning,
		Summary: "No PodDisruptionBudget allows zero disruptions of pods it covers: one that does holds every drain, and Karpenter's consolidation, drift and expiry of the nodes its pods run on, until it allows one.",
		run: func(c *checkRun) {
			var l struct {
				Items []struct {
					Metadata struct{ Name, Namespace string } `json:"metadata"`
					Spec     struct {
						MinAvailable   any `json:"minAvailable"`
						MaxUnavailable any `json:"maxUnavailable"`
					} `json:"spec"`
					Status struct {
						DisruptionsAllowed int `json:"disruptionsAllowed"`
						ExpectedPods       int `json:"expectedPods"`
					} `json:"status"`
				} `json:"items"`
			}
			if !c.load("k8s-pdbs.json", &l, "PodDisruptionBudgets", "every budget", "") || c.dry {
				return
			}
			for _, p := range l.Items {
				if p.Status.DisruptionsAllowed > 0 || p.Status.ExpectedPods == 0 {
					continue
				}
				rule := ""
				switch {
				case p.Spec.MinAvailable != nil:
					rule = fmt.Sprintf("minAvailable %v", p.Spec.MinAvailable)
				case p.Spec.MaxUnavailable != nil:
					rule = fmt.Sprintf("maxUnavailable %v", p.Spec.MaxUnavailable)
				}
				c.report("PodDisruptionBudget "+p.Metadata.Namespace+"/"+p.Metadata.Name, "at least one disruption allowed",
					fmt.Sprintf("0 of %d pods (%s)", p.Status.ExpectedPods, rule),
					"run more replicas than the budget keeps, or relax "+orNone(rule)+": until then its pods' nodes are never drained or replaced")
			}
		},
	},
	{
		ID: "doctor/cluster-autoscaler", Severity: diag.Warning,
		Summary: "No Cluster Autoscaler runs beside Karpenter: it scales the managed node groups, those the profile keeps at fixed sizes among them, and provisions for the same pending pods.",
		run: func(c *checkRun) {
			var l struct {
				Items []struct {
					Kind     string                           `json:"kind"`
					Metadata struct{ Name, Namespace string } `json:"metadata"`
					Spec     struct {
						Replicas *int `json:"replicas"`
						Template struct {
							Spec struct {
								Containers []struct {
									Image   string   `json:"image"`
									Command []string `json:"command"`
								} `json:"containers"`
							} `json:"spec"`
						} `json:"template"`
					} `json:"spec"`
				} `json:"items"`
			}
			if !c.load("k8s-workloads.json", &l, "workloads", "the cluster's Deployments", "") || c.dry {
				return
			}
			for _, w := range l.Items {
				if w.Kind != "Deployment" || (w.Spec.Replicas != nil && *w.Spec.Replicas == 0) {
					continue
				}
				for _, ct := range w.Spec.Template.Spec.Containers {
					if !isClusterAutoscaler(ct.Image, ct.Command) {
						continue
					}
					replicas := 1
					if w.Spec.Replicas != nil {
						replicas = *w.Spec.Replicas
					}
					c.report("deployment "+w.Metadata.Namespace+"/"+w.Metadata.Name, "Cluster Autoscaler scaled to zero once Karpenter provisions",
						fmt.Sprintf("%d replicas of %s", replicas, ct.Image),
						escape.ShellJoin("kubectl", "scale", "deployment", w.Metadata.Name, "--namespace", w.Metadata.Namespace, "--replicas=0")+
							" (the step karpgen migrate "+c.e.Name+" --from cluster-autoscaler plans after Karpenter provisions)")
					break
				}
			}
		},
	},
}

// isClusterAutoscaler tells a Cluster Autoscaler container by its image
// (registry.k8s.io/autoscaling/cluster-autoscaler and its mirrors) or its
// command.
func isClusterAutoscaler(image string, command []string) bool {
	repo := image
	if i := strings.LastIndex(repo, "@"); i >= 0 {
		repo = repo[:i]
	}
	if i := strings.LastIndex(repo, ":"); i > strings.LastIndex(repo, "/") {
		repo = repo[:i]
	}
	if strings.HasSuffix(repo, "/cluster-autoscaler") || repo == "cluster-autoscaler" {
		return true
	}
	return len(command) > 0 && (command[0] == "./cluster-autoscaler" || strings.HasSuffix(command[0], "/cluster-autoscaler") || command[0] == "cluster-autoscaler")
}

// labelArg writes labels as the AWS CLI's --labels takes them.
func labelArg(labels map[string]string) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(labels)) {
		parts = append(parts, k+"="+labels[k])
	}
	return strings.Join(parts, ",")
}

// eksEffect is a Kubernetes taint effect as EKS writes a node group's.
func eksEffect(effect string) string {
	return map[string]string{
		"NoSchedule": "NO_SCHEDULE", "NoExecute": "NO_EXECUTE", "PreferNoSchedule": "PREFER_NO_SCHEDULE",
	}[effect]
}

// eksNodeLabel is the value EKS gives label k on every node of managed
// node group g, and whether EKS sets k at all: the group's name, and its
// capacity type as describe-nodegroup shows it.
func eksNodeLabel(k, g, capacityType string) (string, bool) {
	switch k {
	case "eks.amazonaws.com/nodegroup":
		return g, true
	case "eks.amazonaws.com/capacityType":
		return capacityType, true
	}
	return "", false
}

// reservedLabel reports a label key EKS refuses as a node group's label
// ("Label cannot contain reserved prefixes").
func reservedLabel(k string) bool {
	prefix, _, ok := strings.Cut(k, "/")
	if !ok {
		return false
	}
	for _, r := range []string{"kubernetes.io", "k8s.io", "eks.amazonaws.com"} {
		if prefix == r || strings.HasSuffix(prefix, "."+r) {
			return true
		}
	}
	return false
}
