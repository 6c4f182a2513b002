package sdql

import (
	"math"
	"sort"
)

// Op is a unary real operation with its derivative. Deriv is the derivative
// as an SDQL expression in the variable x (the paper's op'), so adding an
// operation with its derivative is one line of the table.
type Op struct {
	Name  string
	Fn    func(float64) float64
	Deriv string
}

// Ops is the table of unary real operations, by name.
var Ops = map[string]*Op{}

func init() {
	for _, op := range []*Op{
		{"exp", math.Exp, "exp(x)"},
		{"log", math.Log, "1.0 / x"},
		{"sin", math.Sin, "cos(x)"},
		{"cos", math.Cos, "-sin(x)"},
		{"tan", math.Tan, "1.0 + tan(x) * tan(x)"},
		{"sqrt", math.Sqrt, "0.5 / sqrt(x)"},
		{"tanh", math.Tanh, "1.0 - tanh(x) * tanh(x)"},
		{"sigmoid", func(x float64) float64 { return 1 / (1 + math.Exp(-x)) }, "sigmoid(x) * (1.0 - sigmoid(x))"},
		{"abs", math.Abs, "sign(x)"},
		{"sign", sign, "0.0"},
	} {
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

// OpNames returns the names of the operations, sorted.
func OpNames() []string {
	var names []string
	for n := range Ops {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
