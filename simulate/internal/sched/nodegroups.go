package sched

import (
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	karpsched "sigs.k8s.io/karpenter/pkg/scheduling"
	"sigs.k8s.io/karpenter/pkg/utils/resources"

	simulate "github.com/karpgen/karpgen/internal/simulate/wire"
)

// groupPods are the pods of a workload that ask for a kept node group.
type groupPods struct {
	workload int
	group    string
	wl       *workload
}

// placeOnGroups places the pods that ask for a kept node group. A group
// of a known type and size takes them while its nodes have room, first
// fit in the order of the workloads, as kube-scheduler fills nodes that
// are there: each node offers its allocatable less the requests of the
// DaemonSets it runs. A group without them takes every pod.
func placeOnGroups(resp *simulate.Response, groups []simulate.NodeGroup, grouped []groupPods, daemons []*corev1.Pod) error {
	rooms := map[string]*groupRoom{}
	for _, g := range groups {
		if g.Size == nil {
			continue
		}
		r, err := newGroupRoom(g, daemons)
		if err != nil {
			return fmt.Errorf("node group %s: %w", g.Name, err)
		}
		rooms[g.Name] = r
	}
	for _, gp := range grouped {
		pl := &resp.Workloads[gp.workload]
		room := rooms[gp.group]
		if room == nil {
			add(&pl.NodeGroups, gp.group, gp.wl.replicas)
			continue
		}
		for i := range gp.wl.replicas {
			if why := room.place(gp.wl.pod(gp.workload, i)); why != "" {
				add(&pl.Pending, why, 1)
				continue
			}
			add(&pl.NodeGroups, gp.group, 1)
		}
	}
	return nil
}

// groupRoom is what each node of a sized node group has left.
type groupRoom struct {
	group simulate.NodeGroup
	free  []corev1.ResourceList
}

func newGroupRoom(g simulate.NodeGroup, daemons []*corev1.Pod) (*groupRoom, error) {
	alloc, err := quantities(g.Allocatable)
	if err != nil {
		return nil, err
	}
	var runs []*corev1.Pod
	for _, d := range daemons {
		if tolerates(d, g) && compatible(d, g) {
			runs = append(runs, d)
		}
	}
	left := resources.Subtract(alloc, resources.RequestsForPods(runs...))
	r := &groupRoom{group: g}
	for range *g.Size {
		r.free = append(r.free, left.DeepCopy())
	}
	return r, nil
}

// place puts a pod on the first node with room for it, or says why none
// has, as kube-scheduler words it.
func (r *groupRoom) place(p *corev1.Pod) string {
	if len(r.free) == 0 {
		return fmt.Sprintf("node group %s has no nodes (size 0): it holds no pod", r.group.Name)
	}
	req := resources.RequestsForPods(p)
	for i, free := range r.free {
		if resources.Fits(req, free) {
			r.free[i] = resources.Subtract(free, req)
			return ""
		}
	}
	var short []string
	for name, q := range req {
		if !slices.ContainsFunc(r.free, func(free corev1.ResourceList) bool { f := free[name]; return q.Cmp(f) <= 0 }) {
			short = append(short, "Insufficient "+string(name))
		}
	}
	slices.Sort(short)
	if len(short) == 0 {
		short = []string{"no node has room for all its requests at once"}
	}
	return fmt.Sprintf("0/%d nodes of node group %s (%s) are available: %s", len(r.free), r.group.Name, r.group.InstanceType, strings.Join(short, ", "))
}

// nodeGroups are the kept node group a workload's pods ask for (see
// nodeGroupFor), else "" and the first group that would run them anyway:
// kube-scheduler places a pod on any node it fits.
func (wl *workload) nodeGroups(groups []simulate.NodeGroup) (asked, anyway string) {
	pod := wl.pod(0, 0)
	if g := nodeGroupFor(pod, groups); g != "" {
		return g, ""
	}
	for _, g := range groups {
		if tolerates(pod, g) && compatible(pod, g) {
			return "", g.Name
		}
	}
	return "", ""
}

// nodeGroupFor is the kept node group a pod asks for: one whose labels
// satisfy its node selector and required affinity and whose taints it
// tolerates, when the pod names the group (selects one of its labels or
// tolerates one of its taints). A pod that names no group is left to
// Karpenter's pools, which is what the simulation is about; "" for none.
func nodeGroupFor(pod *corev1.Pod, groups []simulate.NodeGroup) string {
	for _, g := range groups {
		if tolerates(pod, g) && compatible(pod, g) && names(pod, g) {
			return g.Name
		}
	}
	return ""
}

func tolerates(pod *corev1.Pod, g simulate.NodeGroup) bool {
	return karpsched.Taints(taints(g)).ToleratesPod(pod) == nil
}

// compatible: the group's nodes satisfy the pod's node selector and
// required affinity. Their architecture is not in the profile: any is
// taken.
func compatible(pod *corev1.Pod, g simulate.NodeGroup) bool {
	reqs := karpsched.NewLabelRequirements(g.Labels)
	if !reqs.Has(corev1.LabelArchStable) {
		reqs.Add(karpsched.NewRequirement(corev1.LabelArchStable, corev1.NodeSelectorOpExists))
	}
	return reqs.Compatible(karpsched.NewStrictPodRequirements(pod)) == nil
}

func names(pod *corev1.Pod, g simulate.NodeGroup) bool {
	reqs := karpsched.NewStrictPodRequirements(pod)
	for k := range g.Labels {
		if reqs.Has(k) {
			return true
		}
	}
	for _, t := range taints(g) {
		if karpsched.Taints([]corev1.Taint{t}).ToleratesPod(pod) == nil {
			return true
		}
	}
	return false
}

func taints(g simulate.NodeGroup) []corev1.Taint {
	out := make([]corev1.Taint, len(g.Taints))
	for i, t := range g.Taints {
		out[i] = corev1.Taint{Key: t.Key, Value: t.Value, Effect: corev1.TaintEffect(t.Effect)}
	}
	return out
}
