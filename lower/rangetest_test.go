package lower

import "testing"

// TestRangeTest checks which conditions are 0 <= v && v < n over one int
// variable (exec runs them as one unsigned comparison a lane).
func TestRangeTest(t *testing.T) {
	v, w := &Var{Name: "j", Kind: Int}, &Var{Name: "k", Kind: Int}
	x := &Var{Name: "x", Kind: Real}
	n := &Var{Name: "n", Kind: Int}
	c := func(i int) Expr { return &Const{K: Int, I: i} }
	ref := func(x *Var) Expr { return &Ref{V: x} }
	bin := func(op BinaryOp, x, y Expr) Expr { return &Binary{Op: op, X: x, Y: y} }
	low, high := bin(Le, c(0), ref(v)), bin(Lt, ref(v), ref(n))
	for _, tc := range []struct {
		e Expr
		v *Var
	}{
		{bin(And, low, high), v},
		{bin(And, high, low), v},
		{bin(And, low, bin(Lt, ref(v), bin(Add, ref(n), c(1)))), v},
		{bin(Or, low, high), nil},                                       // not a conjunction
		{bin(And, low, low), nil},                                       // no upper bound
		{bin(And, high, high), nil},                                     // no lower bound
		{bin(And, bin(Le, c(1), ref(v)), high), nil},                    // from 1
		{bin(And, bin(Le, c(0), ref(w)), high), nil},                    // two variables
		{bin(And, bin(Le, c(0), ref(x)), bin(Lt, ref(x), ref(n))), nil}, // a real
		{bin(And, low, bin(Le, ref(v), ref(n))), nil},                   // v <= n
		{high, nil},
	} {
		got, bound := RangeTest(tc.e)
		if got != tc.v {
			t.Errorf("%s: variable %v, want %v", ExprString(tc.e), got, tc.v)
		}
		if got != nil && bound == nil {
			t.Errorf("%s: no bound", ExprString(tc.e))
		}
	}
}
