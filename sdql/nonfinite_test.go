package sdql

import (
	"errors"
	"fmt"
	"math"
	"testing"
)

// TestNonFinite: Interp.NonFinite names the first operation whose result
// is not finite though its operands are (an op, an operator on scalars or
// dictionaries, a sum's addition), never one whose operand already was;
// returning false stops the run, and MaxOps stops a long one.
func TestNonFinite(t *testing.T) {
	x := NewDict()
	x.Set(0, Real(1e308))
	x.Set(3, Real(1e308))
	for _, c := range []struct {
		prog   string
		inputs map[string]Value
		want   string // the operation printed, its operands and result; "" for none
	}{
		{"log(1 + exp(z))", map[string]Value{"z": Real(800)}, "exp(z) [800] = +Inf"},
		{"log(1 + exp(z))", map[string]Value{"z": Real(1)}, ""},
		{"sum(<i, v> in x) v * 10", map[string]Value{"x": x}, "v * 10 [1e+308 10] = +Inf"},
		{"sum(<i, v> in x) v", map[string]Value{"x": x}, "sum(<i, v> in x) v [1e+308 1e+308] = +Inf"},
		{"a / b", map[string]Value{"a": Real(0), "b": Real(0)}, "a / b [0 0] = NaN"},
		{"a + 1", map[string]Value{"a": Real(math.Inf(1))}, ""}, // the input was not finite
		{"a - a", map[string]Value{"a": Real(math.Inf(1))}, "a - a [+Inf +Inf] = NaN"},
		{"exp(z) / (1 + exp(z))", map[string]Value{"z": Real(800)}, "exp(z) [800] = +Inf"},
		{"x * (a - a)", map[string]Value{"x": x, "a": Real(math.Inf(1))}, "a - a [+Inf +Inf] = NaN"},
		{"x * x", map[string]Value{"x": x}, "x * x [] = +Inf"},
		{"sum(<i, v> in x) { i -> v } * 4", map[string]Value{"x": x}, "{ i -> v } * 4 [] = +Inf"}, // the sum is of the body,
	} {
		e, err := Parse("", c.prog)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		in := &Interp{NonFinite: func(at Expr, args []float64, result float64) bool {
			got = append(got, fmt.Sprintf("%s %v = %v", Print(at), args, result))
			return true
		}}
		if _, err := in.Eval(e, c.inputs); err != nil {
			t.Fatalf("%s: %v", c.prog, err)
		}
		switch {
		case c.want == "" && len(got) > 0:
			t.Errorf("%s: %q, want none", c.prog, got)
		case c.want != "" && (len(got) == 0 || got[0] != c.want):
			t.Errorf("%s: %q, want first %q", c.prog, got, c.want)
		}
	}
	// every event in order: the infinity, then the NaN it makes
	e, _ := Parse("", "exp(z) / (1 + exp(z))")
	var events []string
	in := &Interp{NonFinite: func(at Expr, args []float64, result float64) bool {
		events = append(events, fmt.Sprintf("%s %v = %v", Print(at), args, result))
		return true
	}}
	if _, err := in.Eval(e, map[string]Value{"z": Real(800)}); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(events) != "[exp(z) [800] = +Inf exp(z) [800] = +Inf exp(z) / (1 + exp(z)) [+Inf +Inf] = NaN]" {
		t.Errorf("events %q", events)
	}
	e, _ = Parse("", "sum(<i, v> in x) log(0 * v)")
	calls := 0
	in = &Interp{NonFinite: func(Expr, []float64, float64) bool { calls++; return false }}
	if _, err := in.Eval(e, map[string]Value{"x": x}); !errors.Is(err, ErrStopped) || calls != 1 {
		t.Errorf("a stop: %v after %d calls, want ErrStopped after one", err, calls)
	}
	long := NewDict()
	for i := range 1000 {
		long.Set(i, Real(i))
	}
	in = &Interp{MaxOps: 100}
	if _, err := in.Eval(e, map[string]Value{"x": long}); !errors.Is(err, ErrMaxOps) || in.Ops > 110 {
		t.Errorf("a budget of 100 operations: %v after %d, want ErrMaxOps", err, in.Ops)
	}
}
