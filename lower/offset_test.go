package lower

import "testing"

// TestOffset checks which indexes are a variable plus a constant (a
// load at them over consecutive positions is a slice, exec; IsNext).
func TestOffset(t *testing.T) {
	v, w := &Var{Name: "i", Kind: Int}, &Var{Name: "j", Kind: Int}
	c := func(i int) Expr { return &Const{K: Int, I: i} }
	ref := func(x *Var) Expr { return &Ref{V: x} }
	bin := func(op BinaryOp, x, y Expr) Expr { return &Binary{Op: op, X: x, Y: y} }
	for _, tc := range []struct {
		e  Expr
		d  int
		ok bool
	}{
		{ref(v), 0, true},
		{bin(Add, ref(v), c(1)), 1, true},
		{bin(Add, c(3), ref(v)), 3, true},
		{bin(Sub, ref(v), c(2)), -2, true},
		{bin(Sub, c(2), ref(v)), 0, false},
		{bin(Mul, ref(v), c(2)), 0, false},
		{bin(Add, ref(v), ref(w)), 0, false},
		{ref(w), 0, false},
		{bin(Add, ref(w), c(1)), 0, false},
	} {
		d, ok := Offset(tc.e, v)
		if d != tc.d || ok != tc.ok {
			t.Errorf("%s: %d %v, want %d %v", ExprString(tc.e), d, ok, tc.d, tc.ok)
		}
	}
	if _, ok := Offset(ref(v), nil); ok {
		t.Error("a nil variable matched")
	}
	if !IsNext(bin(Add, c(1), ref(v)), v) || IsNext(bin(Add, ref(v), c(2)), v) || IsNext(ref(v), v) {
		t.Error("IsNext: v + 1 only")
	}
}
