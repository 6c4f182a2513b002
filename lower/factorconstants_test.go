package lower

import (
	"strings"
	"testing"
)

// TestFactorConstants checks when an accumulator's constant factor leaves
// its loop: v declared zero, every addition in the loop v += k * R with
// the same finite non-zero k (leftmost in the product, or its right
// operand), v read nowhere in the loop. It stays where v starts from
// another value, the loop reads v, two additions have different
// factors, k is zero or infinite, or v is set another way.
func TestFactorConstants(t *testing.T) {
	p := &Program{}
	v, a, i := p.NewVar("v", Real), p.NewVar("a", Real), p.NewVar("i", Int)
	ref := func(x *Var) Expr { return &Ref{V: x} }
	mul := func(x, y Expr) Expr { return &Binary{Op: Mul, X: x, Y: y} }
	add := func(x Expr) Stmt { return &Assign{V: v, Op: AddTo, X: x} }
	loop := func(body ...Stmt) Stmt {
		return &For{V: i, Lo: intConst(0), Hi: intConst(3), Body: &Block{List: body}}
	}
	half := realConst(0.5)
	aa := mul(ref(a), ref(a))
	for _, tc := range []struct {
		name     string
		init     Expr
		body     []Stmt
		factored bool
		want     string // the loop's addition after the rewrite
	}{
		{"leftmost", realConst(0), []Stmt{loop(add(mul(mul(half, ref(a)), ref(a))))}, true, "v += a * a"},
		{"right operand", realConst(0), []Stmt{loop(add(mul(aa, half)))}, true, "v += a * a"},
		{"two additions, one factor", realConst(0), []Stmt{loop(add(mul(half, ref(a))), add(mul(ref(a), half)))}, true, "v += a"},
		{"a statement between", realConst(0), []Stmt{&Let{V: a, X: realConst(2)}, loop(add(mul(half, ref(a))))}, true, "v += a"},
		{"not from zero", realConst(1), []Stmt{loop(add(mul(half, ref(a))))}, false, ""},
		{"read in the loop", realConst(0), []Stmt{loop(add(mul(half, ref(v))))}, false, ""},
		{"two factors", realConst(0), []Stmt{loop(add(mul(half, ref(a))), add(mul(realConst(2), ref(a))))}, false, ""},
		{"zero factor", realConst(0), []Stmt{loop(add(mul(realConst(0), ref(a))))}, false, ""},
		{"set in the loop", realConst(0), []Stmt{loop(add(mul(half, ref(a))), &Assign{V: v, Op: Set, X: ref(a)})}, false, ""},
		{"no loop", realConst(0), []Stmt{add(mul(half, ref(a)))}, false, ""},
		{"not a product", realConst(0), []Stmt{loop(add(ref(a)))}, false, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p.Body = &Block{List: append([]Stmt{&Let{V: a, X: realConst(3)}, &Let{V: v, X: tc.init}}, tc.body...)}
			p.ResultVar = v
			before := Print(p)
			FactorConstants(p)
			out := Print(p)
			if got := strings.Contains(out, "v = 0.5 * v"); got != tc.factored {
				t.Fatalf("factored %v, want %v:\n%s", got, tc.factored, out)
			}
			if !tc.factored && out != before {
				t.Errorf("changed:\n%s\nwant:\n%s", out, before)
			}
			if tc.factored && strings.Count(out, tc.want) != strings.Count(before, "v +=") {
				t.Errorf("the additions are not %q:\n%s", tc.want, out)
			}
		})
	}
}
