package sched

import (
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"sigs.k8s.io/karpenter/pkg/controllers/provisioning/scheduling"
	karpsched "sigs.k8s.io/karpenter/pkg/scheduling"

	simulate "github.com/karpgen/karpgen/internal/simulate/wire"
)

// bindCompleted is the annotation the PV controller puts on a claim it
// has bound; Karpenter takes a claim with a volume name but without it
// as unbound.
const bindCompleted = "pv.kubernetes.io/bind-completed"

// defaultClass is the annotation that makes a StorageClass the default.
const defaultClass = "storageclass.kubernetes.io/is-default-class"

// addVolumes puts the request's PersistentVolumes, PersistentVolumeClaims
// and StorageClasses into the cluster. A claim that names a volume the
// request holds is bound, as the PV controller would have bound it
// (captures say so themselves; manifests as teams write them do not).
func (c *cluster) addVolumes(docs []simulate.Workload) error {
	var objs []client.Object
	pvs := map[string]bool{}
	for _, d := range docs {
		var obj client.Object
		switch d.Kind {
		case "PersistentVolume":
			obj = &corev1.PersistentVolume{}
		case "PersistentVolumeClaim":
			obj = &corev1.PersistentVolumeClaim{}
		case "StorageClass":
			obj = &storagev1.StorageClass{}
		default:
			return fmt.Errorf("%s:%d: kind %q is not a volume (PersistentVolume, PersistentVolumeClaim or StorageClass)", d.File, d.Line, d.Kind)
		}
		if err := yaml.UnmarshalStrict([]byte(d.YAML), obj); err != nil {
			return fmt.Errorf("%s:%d: %w", d.File, d.Line, err)
		}
		obj.SetResourceVersion("")
		if pvc, ok := obj.(*corev1.PersistentVolumeClaim); ok && pvc.Namespace == "" {
			pvc.Namespace = "default"
		}
		if pv, ok := obj.(*corev1.PersistentVolume); ok {
			pvs[pv.Name] = true
		}
		objs = append(objs, obj)
	}
	for _, obj := range objs {
		if pvc, ok := obj.(*corev1.PersistentVolumeClaim); ok && pvc.Spec.VolumeName != "" && pvs[pvc.Spec.VolumeName] {
			if pvc.Annotations == nil {
				pvc.Annotations = map[string]string{}
			}
			pvc.Annotations[bindCompleted] = "yes"
		}
		if err := c.client.Create(c.ctx, obj); err != nil {
			return fmt.Errorf("%s %s: %w", obj.GetObjectKind().GroupVersionKind().Kind, obj.GetName(), err)
		}
	}
	return nil
}

// withVolumes gives each pod the claims its controller would make (a
// StatefulSet's volume claim templates, an ephemeral volume's), and
// Karpenter's volume topology: the zones its bound volumes sit in, or
// the topologies its StorageClass allows. A pod Karpenter ignores for
// its claims (one missing, unbound under an Immediate class, ...) is
// returned with upstream's reason.
func (c *cluster) withVolumes(pods []*corev1.Pod, claims map[*corev1.Pod][]corev1.PersistentVolumeClaim) ([]*corev1.Pod, map[*corev1.Pod]error, []string, error) {
	var assumed []string
	assume := func(class string, why string) error {
		sc := &storagev1.StorageClass{}
		if err := c.client.Get(c.ctx, types.NamespacedName{Name: class}, sc); err == nil {
			return nil
		}
		wffc := storagev1.VolumeBindingWaitForFirstConsumer
		sc = &storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: class}, Provisioner: "ebs.csi.aws.com", VolumeBindingMode: &wffc}
		assumed = append(assumed, fmt.Sprintf("StorageClass %s, %s, is taken as EBS's: WaitForFirstConsumer, in any zone", class, why))
		return c.client.Create(c.ctx, sc)
	}
	defaultName := ""
	var classes storagev1.StorageClassList
	if err := c.client.List(c.ctx, &classes); err != nil {
		return nil, nil, nil, err
	}
	for _, sc := range classes.Items {
		if sc.Annotations[defaultClass] == "true" && (defaultName == "" || sc.Name < defaultName) {
			defaultName = sc.Name
		}
	}
	// defaultClassName is the class of a claim that names none: the one
	// the workloads mark default, else one assumed, once.
	defaultClassName := func() (string, error) {
		if defaultName == "" {
			defaultName = "default"
			if err := assume(defaultName, "the default the workloads do not mark (for claims that name no class)"); err != nil {
				return "", err
			}
		}
		return defaultName, nil
	}
	for _, p := range pods {
		for _, pvc := range claims[p] {
			key := types.NamespacedName{Namespace: p.Namespace, Name: pvc.Name}
			if err := c.client.Get(c.ctx, key, &corev1.PersistentVolumeClaim{}); err == nil {
				continue
			}
			pvc := pvc.DeepCopy()
			pvc.Namespace = p.Namespace
			if pvc.Spec.StorageClassName == nil || *pvc.Spec.StorageClassName == "" {
				name, err := defaultClassName()
				if err != nil {
					return nil, nil, nil, err
				}
				pvc.Spec.StorageClassName = &name
			}
			if err := assume(*pvc.Spec.StorageClassName, "which claims name but the workloads do not hold"); err != nil {
				return nil, nil, nil, err
			}
			if err := c.client.Create(c.ctx, pvc); err != nil {
				return nil, nil, nil, fmt.Errorf("claim %s: %w", pvc.Name, err)
			}
		}
	}
	// A claim a pod mounts that the workloads do not hold (it lives in
	// another folder, or the cluster made it): taken as unbound, of the
	// default class, so in any zone, and said, rather than the pod
	// Pending for a file that is simply elsewhere.
	for _, p := range pods {
		for _, v := range p.Spec.Volumes {
			if v.PersistentVolumeClaim == nil {
				continue
			}
			key := types.NamespacedName{Namespace: p.Namespace, Name: v.PersistentVolumeClaim.ClaimName}
			if err := c.client.Get(c.ctx, key, &corev1.PersistentVolumeClaim{}); err == nil {
				continue
			}
			name, err := defaultClassName()
			if err != nil {
				return nil, nil, nil, err
			}
			pvc := &corev1.PersistentVolumeClaim{
				ObjectMeta: metav1.ObjectMeta{Namespace: key.Namespace, Name: key.Name},
				Spec:       corev1.PersistentVolumeClaimSpec{StorageClassName: &name, AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce}},
			}
			if err := c.client.Create(c.ctx, pvc); err != nil {
				return nil, nil, nil, fmt.Errorf("claim %s: %w", key.Name, err)
			}
			assumed = append(assumed, fmt.Sprintf("PersistentVolumeClaim %s/%s, which a workload mounts and the workloads do not hold, is taken as unbound (StorageClass %s), so in any zone", key.Namespace, key.Name, name))
		}
	}
	// Claims given with the workloads, unbound, that name a class the
	// workloads do not hold: the same assumption as for the claims made
	// here.
	var given corev1.PersistentVolumeClaimList
	if err := c.client.List(c.ctx, &given); err != nil {
		return nil, nil, nil, err
	}
	for _, pvc := range given.Items {
		if class := pvc.Spec.StorageClassName; pvc.Spec.VolumeName == "" && class != nil && *class != "" {
			if err := assume(*class, "which claims name but the workloads do not hold"); err != nil {
				return nil, nil, nil, err
			}
		}
	}
	topology := scheduling.NewVolumeTopology(c.client)
	refused := map[*corev1.Pod]error{}
	c.volumeReqs = map[types.UID][]karpsched.Requirements{}
	var out []*corev1.Pod
	for _, p := range pods {
		if !slices.ContainsFunc(p.Spec.Volumes, func(v corev1.Volume) bool { return v.PersistentVolumeClaim != nil || v.Ephemeral != nil }) {
			out = append(out, p)
			continue
		}
		if err := topology.ValidatePersistentVolumeClaims(c.ctx, p); err != nil {
			refused[p] = fmt.Errorf("ignoring pod, %w", err)
			continue
		}
		reqs, err := topology.GetRequirements(c.ctx, p)
		if err != nil {
			refused[p] = fmt.Errorf("ignoring pod, %w", err)
			continue
		}
		if len(reqs) > 0 {
			c.volumeReqs[p.UID] = reqs
		}
		out = append(out, p)
	}
	return out, refused, assumed, nil
}
