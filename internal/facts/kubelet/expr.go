package kubelet

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
)

// Expression variables Karpenter 1.15 gives kubelet expressions (maxPods,
// kubeReserved and systemReserved values), per instance type, and
// whether karpgen's instance-type table knows them.
var exprVars = []struct {
	name  string
	typ   *cel.Type
	known bool
}{
	{"vcpus", cel.IntType, false},
	{"memory_mib", cel.IntType, false},
	{"default_enis", cel.IntType, true},
	{"ips_per_eni", cel.IntType, true},
	{"max_pods", cel.IntType, true},
	{"instance_type", cel.StringType, true},
}

// exprEnv is built on first use: a CEL environment takes a noticeable part
// of a millisecond, which a command that evaluates no expression must not
// pay at start.
var exprEnv = sync.OnceValue(func() *cel.Env {
	opts := []cel.EnvOption{}
	for _, v := range exprVars {
		opts = append(opts, cel.Variable(v.name, v.typ))
	}
	// min and max of two numbers, ints and doubles mixed, as Karpenter
	// declares them.
	for _, fn := range []struct {
		name string
		pick func(a, b float64) bool
	}{{"max", func(a, b float64) bool { return a > b }}, {"min", func(a, b float64) bool { return a < b }}} {
		pick := fn.pick
		binding := func(lhs, rhs ref.Val) ref.Val {
			l, r := toFloat(lhs), toFloat(rhs)
			_, li := lhs.(types.Int)
			_, ri := rhs.(types.Int)
			chosen := rhs
			if pick(l, r) {
				chosen = lhs
			}
			if li && ri {
				return chosen
			}
			return types.Double(toFloat(chosen))
		}
		opts = append(opts, cel.Function(fn.name,
			cel.Overload(fn.name+"_int_int", []*cel.Type{cel.IntType, cel.IntType}, cel.IntType, cel.BinaryBinding(binding)),
			cel.Overload(fn.name+"_double_double", []*cel.Type{cel.DoubleType, cel.DoubleType}, cel.DoubleType, cel.BinaryBinding(binding)),
			cel.Overload(fn.name+"_int_double", []*cel.Type{cel.IntType, cel.DoubleType}, cel.DoubleType, cel.BinaryBinding(binding)),
			cel.Overload(fn.name+"_double_int", []*cel.Type{cel.DoubleType, cel.IntType}, cel.DoubleType, cel.BinaryBinding(binding)),
		))
	}
	env, err := cel.NewEnv(opts...)
	if err != nil {
		panic(err)
	}
	return env
})

func toFloat(v ref.Val) float64 {
	switch x := v.(type) {
	case types.Int:
		return float64(x)
	case types.Double:
		return float64(x)
	}
	return math.NaN()
}

// VarList names the variables an expression may use.
func VarList() string {
	var names []string
	for _, v := range exprVars {
		names = append(names, v.name)
	}
	return strings.Join(names, ", ")
}

// maxCost bounds an expression's evaluation, in CEL's cost units: far
// above arithmetic over a few variables.
const maxCost = 10000

// Expr is a compiled kubelet expression.
type Expr struct {
	prg cel.Program
	// Needs are the variables it reads that karpgen's table cannot
	// give (vcpus, memory_mib): it cannot be evaluated here.
	Needs []string
}

// Compile checks an expression as Karpenter 1.15 does: it compiles
// against the documented variables and returns an int or a double.
func Compile(expression string) (*Expr, error) {
	ast, issues := exprEnv().Compile(expression)
	if issues != nil && issues.Err() != nil {
		// The first error, on one line, at its column.
		e := issues.Errors()[0]
		msg := strings.TrimSuffix(e.Message, " (in container '')")
		return nil, fmt.Errorf("%s at column %d", msg, e.Location.Column()+1)
	}
	if t := ast.OutputType(); t != cel.IntType && t != cel.DoubleType {
		return nil, fmt.Errorf("it returns %s; it must return an int or a double", t)
	}
	// A profile is untrusted: an expression whose evaluation would cost
	// more than any kubelet value needs (nested comprehensions over
	// literal lists) stops there instead of running away.
	prg, err := exprEnv().Program(ast, cel.CostLimit(maxCost))
	if err != nil {
		return nil, err
	}
	e := &Expr{prg: prg}
	checked, _ := cel.AstToCheckedExpr(ast)
	for _, v := range exprVars {
		if v.known {
			continue
		}
		for _, r := range checked.GetReferenceMap() {
			if r.GetName() == v.name {
				e.Needs = append(e.Needs, v.name)
				break
			}
		}
	}
	return e, nil
}

// Vars are what an instance type gives an expression. VCPUs and
// MemoryMiB are set only where they are known (Validate's bounds).
type Vars struct {
	DefaultENIs, IPsPerENI, MaxPods int64
	VCPUs, MemoryMiB                int64
	InstanceType                    string
}

func (e *Expr) activation(v Vars) map[string]any {
	return map[string]any{
		"default_enis": v.DefaultENIs, "ips_per_eni": v.IPsPerENI, "max_pods": v.MaxPods, "instance_type": v.InstanceType,
		"vcpus": v.VCPUs, "memory_mib": v.MemoryMiB,
	}
}

// Eval evaluates the expression for an instance type; ok is false when it
// needs a variable the table lacks or fails.
func (e *Expr) Eval(v Vars) (int64, bool) {
	if len(e.Needs) > 0 {
		return 0, false
	}
	n, why := e.number(v)
	return n, why == ""
}

// EvalWith evaluates the expression for an instance type whose every
// variable is given (VCPUs and MemoryMiB too, from the capacity table).
func (e *Expr) EvalWith(v Vars) (int64, error) {
	n, why := e.number(v)
	if why != "" {
		return 0, errors.New(why)
	}
	return n, nil
}

// number is the expression's value for an instance type as a whole
// number, as Karpenter takes it (a double is truncated); why says why it
// has none.
func (e *Expr) number(v Vars) (n int64, why string) {
	out, _, err := e.prg.Eval(e.activation(v))
	if err != nil {
		return 0, "it fails: " + err.Error()
	}
	switch x := out.Value().(type) {
	case int64:
		return x, ""
	case float64:
		if math.IsInf(x, 0) || math.IsNaN(x) {
			return 0, fmt.Sprintf("it is %v, not a finite number", x)
		}
		if x >= math.MaxInt64 || x < math.MinInt64 {
			return 0, fmt.Sprintf("it is %g, beyond any whole number Karpenter can hold", x)
		}
		return int64(x), ""
	default:
		return 0, fmt.Sprintf("it returns %T", x)
	}
}
