package sched

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"
	"sigs.k8s.io/karpenter/pkg/cloudprovider"
	"sigs.k8s.io/karpenter/pkg/scheduling"

	simulate "github.com/karpgen/karpgen/internal/simulate/wire"
)

// instanceType is a request's instance type as Karpenter's cloud
// provider interface gives it to the scheduler: requirements for every
// label, capacity, overhead and offerings.
func instanceType(it simulate.InstanceType, wellKnown []string) (*cloudprovider.InstanceType, error) {
	reqs := scheduling.NewRequirements()
	for k, v := range it.Labels {
		reqs.Add(scheduling.NewRequirement(k, corev1.NodeSelectorOpIn, v))
	}
	var zones, capacityTypes []string
	for _, o := range it.Offerings {
		zones = append(zones, o.Zone)
		capacityTypes = append(capacityTypes, o.CapacityType)
	}
	reqs.Add(
		scheduling.NewRequirement(corev1.LabelTopologyZone, corev1.NodeSelectorOpIn, zones...),
		scheduling.NewRequirement(karpv1.CapacityTypeLabelKey, corev1.NodeSelectorOpIn, capacityTypes...),
	)
	// The provider states every instance label of every type: one a type
	// has no value of (a GPU's, say) does not exist on its nodes.
	for _, k := range wellKnown {
		if strings.HasPrefix(k, "karpenter.k8s.aws/instance-") && !reqs.Has(k) {
			reqs.Add(scheduling.NewRequirement(k, corev1.NodeSelectorOpDoesNotExist))
		}
	}
	capacity, err := quantities(it.Capacity)
	if err != nil {
		return nil, fmt.Errorf("%s capacity: %w", it.Name, err)
	}
	overhead, err := quantities(it.Overhead)
	if err != nil {
		return nil, fmt.Errorf("%s overhead: %w", it.Name, err)
	}
	out := &cloudprovider.InstanceType{
		Name:         it.Name,
		Requirements: reqs,
		Capacity:     capacity,
		Overhead:     &cloudprovider.InstanceTypeOverhead{KubeReserved: overhead},
	}
	for _, o := range it.Offerings {
		out.Offerings = append(out.Offerings, &cloudprovider.Offering{
			Requirements: scheduling.NewLabelRequirements(map[string]string{
				corev1.LabelTopologyZone:    o.Zone,
				karpv1.CapacityTypeLabelKey: o.CapacityType,
			}),
			Price:     o.Price,
			Available: true,
		})
	}
	return out, nil
}

func quantities(m map[string]string) (corev1.ResourceList, error) {
	out := corev1.ResourceList{}
	for k, v := range m {
		q, err := resource.ParseQuantity(v)
		if err != nil {
			return nil, fmt.Errorf("%s %q: %w", k, v, err)
		}
		out[corev1.ResourceName(k)] = q
	}
	return out, nil
}
