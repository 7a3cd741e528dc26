package kubelet

import (
	"fmt"
	"math"
)

// Karpenter 1.15 validates a node class's kubelet expressions on every
// instance type of the region before the class is ready, and refuses the
// class (no node launches from it) at the first that fails: an
// evaluation error, a non-finite double, a maxPods outside 0 to
// 2,147,483,647, or a negative reservation. Validate does the same over
// the instance types karpgen knows.

// MaxPodsLimit is the largest maxPods Karpenter takes from an expression.
const MaxPodsLimit = math.MaxInt32

// Bounds stand in for vcpus and memory_mib, which karpgen's tables do
// not give per instance type: an expression that reads them is evaluated
// at the smallest and the largest instance types EC2 offers.
var Bounds = []struct {
	Name             string
	VCPUs, MemoryMiB int64
}{
	{"the smallest instance types (1 vCPU, 512 MiB)", 1, 512},
	{"the largest instance types (896 vCPUs, 32 TiB)", 896, 32 << 20},
}

// Failure is one instance type on which an expression cannot be used.
type Failure struct {
	Type string
	// Bound names the bound vcpus and memory_mib were taken at, for an
	// expression that reads them.
	Bound string
	// Why says what happened: the value and why Karpenter refuses it,
	// or the evaluation error.
	Why string
}

// Field says which kubelet field an expression sets, for the range its
// value must fall in.
type Field int

const (
	MaxPods  Field = iota // 0 to MaxPodsLimit
	Reserved              // not negative
)

// Validate evaluates the expression on every instance type (each given
// with every variable karpgen has) and lists those on which Karpenter
// would refuse it, in the order given. An expression that reads vcpus or
// memory_mib is tried on every type at each bound instead, and gives at
// most one failure per bound.
func (e *Expr) Validate(field Field, types []Vars) []Failure {
	var out []Failure
	if len(e.Needs) == 0 {
		for _, v := range types {
			if why := e.refused(field, v); why != "" {
				out = append(out, Failure{Type: v.InstanceType, Why: why})
			}
		}
		return out
	}
	for _, b := range Bounds {
		for _, v := range types {
			v.VCPUs, v.MemoryMiB = b.VCPUs, b.MemoryMiB
			if why := e.refused(field, v); why != "" {
				out = append(out, Failure{Type: v.InstanceType, Bound: b.Name, Why: why})
				break
			}
		}
	}
	return out
}

// refused says why Karpenter refuses the expression's value for an
// instance type, "" when it takes it.
func (e *Expr) refused(field Field, v Vars) string {
	n, why := e.number(v)
	if why != "" {
		return why
	}
	switch {
	case field == MaxPods && (n < 0 || n > MaxPodsLimit):
		return fmt.Sprintf("it is %d, outside 0 to %d", n, MaxPodsLimit)
	case field == Reserved && n < 0:
		return fmt.Sprintf("it is %d, a negative reservation", n)
	}
	return ""
}
