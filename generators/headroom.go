package generators

import (
	"maps"
	"slices"

	"github.com/karpgen/karpgen/internal/facts"
	"github.com/karpgen/karpgen/internal/model"
)

// Headroom facts.
const (
	// HeadroomPriorityClass is the priority of placeholder pods: below
	// every workload, so any pending pod preempts them.
	HeadroomPriorityClass = "karpgen-headroom"
	headroomPriority      = -10
)

// Headroom returns the objects that keep spare capacity warm in the
// pools that ask for it: one PriorityClass of negative priority and, per
// pool, a Deployment of pause pods that request the headroom, tolerate
// the pool's taints and select its nodes. Nil when no pool asks.
func Headroom(e *model.Env) []any {
	p, n := e.Profile, e.Names
	var out []any
	for _, name := range slices.Sorted(maps.Keys(p.NodePools)) {
		np := p.NodePools[name]
		h := np.Headroom
		if h == nil {
			continue
		}
		if len(out) == 0 {
			out = append(out, obj{
				"apiVersion":       "scheduling.k8s.io/v1",
				"kind":             "PriorityClass",
				"metadata":         obj{"name": HeadroomPriorityClass},
				"value":            headroomPriority,
				"globalDefault":    false,
				"preemptionPolicy": "Never",
				"description":      "Placeholder pods that keep spare Karpenter capacity; any workload preempts them.",
			})
		}
		labels := obj{"app.kubernetes.io/name": "headroom", "app.kubernetes.io/instance": name, "app.kubernetes.io/managed-by": "karpgen"}
		selector := obj{keyNodePool: name}
		for k, v := range np.Labels {
			selector[k] = v
		}
		tolerations := tolerationList(model.Tolerations(np.Taints))
		// The "restricted" Pod Security level, and no API access: pause
		// needs neither privileges nor a service account token.
		podSecurity := obj{"runAsNonRoot": true, "seccompProfile": obj{"type": "RuntimeDefault"}}
		containerSecurity := obj{"allowPrivilegeEscalation": false, "runAsNonRoot": true, "runAsUser": 65535, "readOnlyRootFilesystem": true, "capabilities": obj{"drop": strs("ALL")}}
		windows := len(np.OS) == 1 && np.OS[0] == "windows"
		if windows {
			// A Windows pod (spec.os) may carry none of the Linux-only
			// fields; it runs as the unprivileged ContainerUser.
			podSecurity = obj{"runAsNonRoot": true, "windowsOptions": obj{"runAsUserName": "ContainerUser"}}
			containerSecurity = obj{"runAsNonRoot": true}
		} else if len(np.OS) > 1 {
			// A pool of both: the placeholders are Linux pods, on Linux
			// nodes.
			selector[facts.KeyOS] = "linux"
		}
		pod := obj{
			"priorityClassName":             HeadroomPriorityClass,
			"terminationGracePeriodSeconds": 0,
			"nodeSelector":                  selector,
			"automountServiceAccountToken":  false,
			"enableServiceLinks":            false,
			"securityContext":               podSecurity,
			"containers": []any{obj{
				"name":  "pause",
				"image": model.HeadroomImage(n, h),
				"resources": obj{
					"requests": obj{"cpu": h.CPU, "memory": h.Memory},
					"limits":   obj{"memory": h.Memory},
				},
				"securityContext": containerSecurity,
			}},
		}
		if windows {
			pod["os"] = obj{"name": "windows"}
		}
		if h.OnePerNode {
			// Each placeholder keeps a node of its own warm.
			pod["affinity"] = obj{"podAntiAffinity": obj{"requiredDuringSchedulingIgnoredDuringExecution": []any{
				obj{"topologyKey": facts.KeyHostname, "labelSelector": obj{"matchLabels": labels}},
			}}}
		}
		if len(tolerations) > 0 {
			pod["tolerations"] = tolerations
		}
		out = append(out, obj{
			"apiVersion": "apps/v1",
			"kind":       "Deployment",
			"metadata":   obj{"name": "headroom-" + name, "namespace": n.Namespace, "labels": labels},
			"spec": obj{
				"replicas": h.Replicas,
				"selector": obj{"matchLabels": labels},
				"template": obj{"metadata": obj{"labels": labels}, "spec": pod},
			},
		})
	}
	return out
}
