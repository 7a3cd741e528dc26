package sched

import (
	"fmt"
	"slices"
	"strconv"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/yaml"

	simulate "github.com/karpgen/karpgen/internal/simulate/wire"
)

// maxPodsPerWorkload bounds the pods one workload asks for, and
// maxPods those of all of them: a replica count is the manifest author's,
// and the simulation holds every pod (a few KB of Deployments of 100,000
// replicas each once took 3.6 GiB).
const (
	maxPodsPerWorkload = 100000
	maxPods            = 100000
)

// workload is one manifest read: what it is and the pods it makes.
type workload struct {
	kind, namespace, name string
	daemonSet             bool
	template              corev1.PodTemplateSpec
	replicas              int
	// claims are a StatefulSet's volume claim templates.
	claims []corev1.PersistentVolumeClaim
}

// decode reads a workload's manifest.
func decode(w simulate.Workload) (*workload, error) {
	var head struct {
		Kind     string            `json:"kind"`
		Metadata metav1.ObjectMeta `json:"metadata"`
	}
	if err := yaml.Unmarshal([]byte(w.YAML), &head); err != nil {
		return nil, err
	}
	out := &workload{kind: head.Kind, namespace: head.Metadata.Namespace, name: head.Metadata.Name, replicas: 1}
	if out.namespace == "" {
		out.namespace = "default"
	}
	strict := func(v any) error { return yaml.UnmarshalStrict([]byte(w.YAML), v) }
	switch head.Kind {
	case "Deployment":
		var d appsv1.Deployment
		if err := strict(&d); err != nil {
			return nil, err
		}
		out.template, out.replicas = d.Spec.Template, replicas(d.Spec.Replicas)
	case "StatefulSet":
		var s appsv1.StatefulSet
		if err := strict(&s); err != nil {
			return nil, err
		}
		out.template, out.replicas = s.Spec.Template, replicas(s.Spec.Replicas)
		out.claims = s.Spec.VolumeClaimTemplates
	case "ReplicaSet":
		var r appsv1.ReplicaSet
		if err := strict(&r); err != nil {
			return nil, err
		}
		out.template, out.replicas = r.Spec.Template, replicas(r.Spec.Replicas)
	case "DaemonSet":
		var d appsv1.DaemonSet
		if err := strict(&d); err != nil {
			return nil, err
		}
		out.template, out.daemonSet = d.Spec.Template, true
	case "Job":
		var j batchv1.Job
		if err := strict(&j); err != nil {
			return nil, err
		}
		out.template, out.replicas = j.Spec.Template, replicas(j.Spec.Parallelism)
	case "CronJob":
		var c batchv1.CronJob
		if err := strict(&c); err != nil {
			return nil, err
		}
		out.template, out.replicas = c.Spec.JobTemplate.Spec.Template, replicas(c.Spec.JobTemplate.Spec.Parallelism)
	case "Pod":
		var p corev1.Pod
		if err := strict(&p); err != nil {
			return nil, err
		}
		out.template = corev1.PodTemplateSpec{ObjectMeta: p.ObjectMeta, Spec: p.Spec}
	default:
		return nil, fmt.Errorf("kind %q is not a workload (Deployment, StatefulSet, ReplicaSet, DaemonSet, Job, CronJob or Pod)", head.Kind)
	}
	if out.replicas < 0 || out.replicas > maxPodsPerWorkload {
		return nil, fmt.Errorf("%d replicas: at most %d pods a workload are simulated", out.replicas, maxPodsPerWorkload)
	}
	return out, nil
}

func replicas(n *int32) int {
	if n == nil {
		return 1
	}
	return int(*n)
}

// pod is the i-th pod of workload number w: its template, with a name
// and UID that say whose it is.
func (wl *workload) pod(w, i int) *corev1.Pod {
	name := wl.name + "-" + strconv.Itoa(i)
	p := &corev1.Pod{
		ObjectMeta: *wl.template.ObjectMeta.DeepCopy(),
		Spec:       *wl.template.Spec.DeepCopy(),
	}
	p.Name, p.Namespace = name, wl.namespace
	// The API server's defaulting: a resource with a limit and no
	// request requests its limit (GPUs are asked for this way).
	for _, cs := range [][]corev1.Container{p.Spec.InitContainers, p.Spec.Containers} {
		for i := range cs {
			r := &cs[i].Resources
			for k, q := range r.Limits {
				if _, ok := r.Requests[k]; !ok {
					if r.Requests == nil {
						r.Requests = corev1.ResourceList{}
					}
					r.Requests[k] = q.DeepCopy()
				}
			}
		}
	}
	p.UID = types.UID(fmt.Sprintf("w%06d-p%06d", w, i))
	p.Status.Phase = corev1.PodPending
	return p
}

// claimsOf are the claims a pod's controllers make for it: its
// StatefulSet's, one a template, named <template>-<pod> and mounted as
// the template's name; and one for each of its ephemeral volumes, named
// <pod>-<volume>.
func (wl *workload) claimsOf(p *corev1.Pod) []corev1.PersistentVolumeClaim {
	var out []corev1.PersistentVolumeClaim
	for _, t := range wl.claims {
		pvc := *t.DeepCopy()
		pvc.Name = t.Name + "-" + p.Name
		out = append(out, pvc)
		if !slices.ContainsFunc(p.Spec.Volumes, func(v corev1.Volume) bool { return v.Name == t.Name }) {
			p.Spec.Volumes = append(p.Spec.Volumes, corev1.Volume{Name: t.Name, VolumeSource: corev1.VolumeSource{
				PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: pvc.Name},
			}})
		}
	}
	for _, v := range p.Spec.Volumes {
		if v.Ephemeral != nil && v.Ephemeral.VolumeClaimTemplate != nil {
			out = append(out, corev1.PersistentVolumeClaim{
				ObjectMeta: metav1.ObjectMeta{Name: p.Name + "-" + v.Name},
				Spec:       *v.Ephemeral.VolumeClaimTemplate.Spec.DeepCopy(),
			})
		}
	}
	return out
}

// workloadOf is the number of the workload a pod of pod() belongs to.
func workloadOf(p *corev1.Pod) int {
	var w, i int
	fmt.Sscanf(string(p.UID), "w%06d-p%06d", &w, &i)
	return w
}
