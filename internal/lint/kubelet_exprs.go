package lint

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/karpgen/karpgen/internal/facts/instancetypes"
	"github.com/karpgen/karpgen/internal/facts/kubelet"
	"github.com/karpgen/karpgen/internal/profile"
)

// largest is what the largest instance type EC2 offers has: a
// reservation above it fits no node.
var largest = map[string]resource.Quantity{
	"cpu":    resource.MustParse("1920"),
	"memory": resource.MustParse("32Ti"),
}

// checkExpressions holds a node class's kubelet expressions to what
// Karpenter 1.15 accepts on every instance type, as its node class
// validation does: each is evaluated for every instance type (maxPods
// with the type's default max_pods, reservations with the maxPods
// resolved for it). What fails is refused at the expression's position.
func (c *Context) checkExpressions(base string, k *profile.Kubelet) {
	var types []instancetypes.Type
	for _, t := range instancetypes.All() {
		if t.Arch != "" {
			types = append(types, t)
		}
	}
	vars := func(maxPods func(instancetypes.Type) int64) []kubelet.Vars {
		out := make([]kubelet.Vars, len(types))
		for i, t := range types {
			out[i] = kubelet.Vars{DefaultENIs: int64(t.ENIs), IPsPerENI: int64(t.IPv4PerENI), MaxPods: maxPods(t), InstanceType: t.Name}
		}
		return out
	}
	defaultPods := func(t instancetypes.Type) int64 { return int64(t.ENIMaxPods()) }
	resolved := defaultPods
	if k.MaxPods != nil {
		resolved = func(instancetypes.Type) int64 { return int64(*k.MaxPods) }
	}
	// A maxPods expression that does not compile or fails is reported on
	// its own; the reservations are then tried with the default.
	if expr, err := kubelet.Compile(k.MaxPodsExpr); k.MaxPodsExpr != "" && err == nil {
		if bad := expr.Validate(kubelet.MaxPods, vars(defaultPods)); len(bad) > 0 {
			c.Report(at(base, "maxPods"), `write an expression that gives 0 or more pods on every instance type, such as "min(max_pods, 110)"`,
				"kubelet maxPods %q cannot be used on %s: Karpenter refuses the node class and launches no node from it", k.MaxPodsExpr, failures(bad, len(types)))
		} else {
			resolved = func(t instancetypes.Type) int64 {
				v, _ := expr.Eval(kubelet.Vars{DefaultENIs: int64(t.ENIs), IPsPerENI: int64(t.IPv4PerENI), MaxPods: int64(t.ENIMaxPods()), InstanceType: t.Name})
				return v
			}
		}
	}
	for _, f := range []struct {
		name string
		m    map[string]string
	}{{"kubeReserved", k.KubeReserved}, {"systemReserved", k.SystemReserved}} {
		for _, r := range names(f.m) {
			v := f.m[r]
			if _, err := resource.ParseQuantity(v); err == nil {
				continue // a quantity: checkKubelet holds it
			}
			expr, err := kubelet.Compile(v)
			if err != nil {
				continue // reported as neither a quantity nor an expression
			}
			if bad := expr.Validate(kubelet.Reserved, vars(resolved)); len(bad) > 0 {
				c.Report(at(base, f.name, field(r)), "write an expression that gives 0 or more on every instance type",
					"kubelet %s %s %q cannot be used on %s: Karpenter refuses the node class and launches no node from it", f.name, r, v, failures(bad, len(types)))
			}
		}
	}
}

// failures says on how many instance types an expression fails, and why
// on the first.
func failures(bad []kubelet.Failure, of int) string {
	if bad[0].Bound != "" {
		var at []string
		for _, b := range bad {
			at = append(at, b.Bound+", where "+b.Why)
		}
		return strings.Join(at, "; and ") + " (karpgen's tables lack vcpus and memory_mib per instance type: it tries EC2's smallest and largest)"
	}
	first := bad[0].Type + ", where " + bad[0].Why
	if len(bad) == 1 {
		return "the instance type " + first
	}
	what := fmt.Sprintf("%d of the %d instance types Karpenter checks it on", len(bad), of)
	if len(bad) == of {
		what = fmt.Sprintf("any of the %d instance types Karpenter checks it on", of)
	}
	return what + " (" + first + ")"
}

// reservationFits refuses a reservation larger than the largest instance
// type has: no node would have room for a pod.
func (c *Context) reservationFits(path, field_, r, v string) {
	q, err := resource.ParseQuantity(v)
	max, ok := largest[r]
	if err != nil || !ok || q.Cmp(max) <= 0 {
		return
	}
	c.Report(path, fmt.Sprintf("reserve less than a node has (the largest instance type has %s of %s)", max.String(), r),
		"kubelet %s %s %q is more than any instance type has: no node would have room for a pod", field_, r, v)
}
