package sdql

import (
	"fmt"
	"math"
	"sort"
	"strings"
)

// Op is a real operation op(x) or op(x, y) with its partial derivatives.
// The derivatives are SDQL expressions in the variables x and y (the
// paper's op'), so adding an operation with its derivative is one entry of
// the table.
//
// At a kink (abs at 0, max and min where x == y) the derivative is the
// average of the one-sided derivatives, which is what a central finite
// difference gives: abs'(0) = 0, and max and min give 0.5 to each side.
type Op struct {
	Name string
	// Arity is 1 for op(x) and 2 for op(x, y).
	Arity int
	// Fn computes an operation of arity 1, Fn2 one of arity 2.
	Fn  func(x float64) float64
	Fn2 func(x, y float64) float64
	// Deriv is ∂op/∂x; DerivY is ∂op/∂y (arity 2).
	Deriv, DerivY string
	// Doc says what the operation computes, for messages and help.
	Doc string
}

// Apply computes the operation on its arguments (one or two).
func (op *Op) Apply(x, y float64) float64 {
	if op.Arity == 2 {
		return op.Fn2(x, y)
	}
	return op.Fn(x)
}

// Ops is the table of real operations, by name.
var Ops = map[string]*Op{}

func init() {
	for _, op := range []*Op{
		{Name: "exp", Fn: math.Exp, Deriv: "exp(x)", Doc: "e^x"},
		{Name: "log", Fn: math.Log, Deriv: "1.0 / x", Doc: "the natural logarithm"},
		{Name: "log1p", Fn: math.Log1p, Deriv: "1.0 / (1.0 + x)", Doc: "log(1 + x), exact for small x"},
		{Name: "expm1", Fn: math.Expm1, Deriv: "exp(x)", Doc: "e^x - 1, exact for small x"},
		{Name: "sin", Fn: math.Sin, Deriv: "cos(x)", Doc: "the sine"},
		{Name: "cos", Fn: math.Cos, Deriv: "-sin(x)", Doc: "the cosine"},
		{Name: "tan", Fn: math.Tan, Deriv: "1.0 + tan(x) * tan(x)", Doc: "the tangent"},
		{Name: "sqrt", Fn: math.Sqrt, Deriv: "0.5 / sqrt(x)", Doc: "the square root"},
		{Name: "tanh", Fn: math.Tanh, Deriv: "1.0 - tanh(x) * tanh(x)", Doc: "the hyperbolic tangent"},
		{Name: "sigmoid", Fn: Sigmoid, Deriv: "sigmoid(x) * (1.0 - sigmoid(x))", Doc: "1 / (1 + e^-x)"},
		{Name: "softplus", Fn: Softplus, Deriv: "sigmoid(x)", Doc: "log(1 + e^x), without overflow"},
		{Name: "abs", Fn: math.Abs, Deriv: "sign(x)", Doc: "|x| (derivative 0 at 0)"},
		{Name: "sign", Fn: sign, Deriv: "0.0", Doc: "1, -1 or 0"},
		{Name: "pow", Arity: 2, Fn2: math.Pow, Deriv: "if y == 0.0 then 0.0 else y * pow(x, y - 1.0)",
			DerivY: "pow(x, y) * log(x)", Doc: "x to the power y"},
		{Name: "max", Arity: 2, Fn2: math.Max, Deriv: "0.5 + 0.5 * sign(x - y)", DerivY: "0.5 - 0.5 * sign(x - y)",
			Doc: "the larger of x and y (derivative 0.5 to each where they are equal)"},
		{Name: "min", Arity: 2, Fn2: math.Min, Deriv: "0.5 - 0.5 * sign(x - y)", DerivY: "0.5 + 0.5 * sign(x - y)",
			Doc: "the smaller of x and y (derivative 0.5 to each where they are equal)"},
	} {
		if op.Arity == 0 {
			op.Arity = 1
		}
		Ops[op.Name] = op
	}
}

func sign(x float64) float64 {
	switch {
	case x > 0:
		return 1
	case x < 0:
		return -1
	}
	return 0
}

// Sigmoid is the operation sigmoid: 1 / (1 + e^-x).
func Sigmoid(x float64) float64 { return 1 / (1 + math.Exp(-x)) }

// Softplus is the operation softplus: log(1 + e^x), computed as
// max(x, 0) + log1p(e^-|x|) so that it neither overflows for large x nor
// loses digits for small ones.
func Softplus(x float64) float64 { return math.Max(x, 0) + math.Log1p(math.Exp(-math.Abs(x))) }

// OpNames returns the names of the operations, sorted.
func OpNames() []string {
	var names []string
	for n := range Ops {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// UnknownFunction is the message for a call of an unknown operation:
// "unknown function logg (did you mean log?)" when one is a typo away,
// else "unknown function frob (want one of abs(x), ...)".
func UnknownFunction(name string) string {
	if op := Suggest(name, OpNames()); op != "" {
		return fmt.Sprintf("unknown function %s (did you mean %s?)", name, op)
	}
	return fmt.Sprintf("unknown function %s (want one of %s)", name, opList())
}

// opList is the operations' names with their arguments, for messages:
// "abs(x), cos(x), ..., pow(x, y), ...".
func opList() string {
	var b strings.Builder
	for i, n := range OpNames() {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(n)
		if Ops[n].Arity == 2 {
			b.WriteString("(x, y)")
		} else {
			b.WriteString("(x)")
		}
	}
	return b.String()
}
